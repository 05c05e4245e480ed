#!/usr/bin/env bash
# Ingest benchmark: how much slower is `ctool ingest` (validate every cell, load, cross-check, fsync)
# than the plainest DuckDB load of the same products file, and how much of it is validation?
#
# Generates bench/out/input-$ROWS (the sample files plus a $ROWS-row products file), then times in ONE
# hyperfine run, side by side:
#   ctool ingest    bin/ctool ingest --input DIR --db bench/out/ingest.duckdb   (from no database file)
#   plain read_csv  bench/out/plainload DIR/filtered_product_data.csv bench/out/plain.duckdb (likewise)
#   ctool validate  bin/ctool validate --input DIR                             (validation alone)
# Results: bench/results/ingest.md (ingest-${ROWS}rows.md for another ROWS), raw JSON in bench/out.
#
# Environment: ROWS (default 1000000), RUNS (at least this many timed runs, default 5), WARMUP
# (default 2), REGEN=1 to rewrite the generated input even if it exists.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-2}
DIR=bench/out/input-$ROWS
CSV=$DIR/filtered_product_data.csv

if [[ $ROWS == 1000000 ]]; then
	RESULT=bench/results/ingest.md
else
	RESULT=bench/results/ingest-${ROWS}rows.md
fi
JSON=bench/out/ingest-$ROWS.json

# shellcheck source=bench/lib.sh
source bench/lib.sh

need_tools hyperfine jq

build_helpers gen plainload

generate_input "$DIR" "$ROWS"

say "checking that the generated input is valid"
bin/ctool validate --input "$DIR"

say "timing ctool ingest, the plain read_csv load and ctool validate side by side ($WARMUP warmups, at least $RUNS runs each)"
hyperfine --style basic --warmup "$WARMUP" --min-runs "$RUNS" \
	--export-markdown "$RESULT" --export-json "$JSON" \
	-n 'ctool ingest' --prepare 'rm -f bench/out/ingest.duckdb bench/out/ingest.duckdb.wal bench/out/ingest.profiles-*.duckdb' \
	"bin/ctool ingest --input $DIR --db bench/out/ingest.duckdb" \
	-n 'plain read_csv' --prepare 'rm -f bench/out/plain.duckdb bench/out/plain.duckdb.wal' \
	"bench/out/plainload $CSV bench/out/plain.duckdb" \
	-n 'ctool validate' --prepare 'true' \
	"bin/ctool validate --input $DIR"

# figure NAME EXPR: a jq expression over one command's entry in the JSON export (seconds).
figure() { jq -r --arg n "$1" ".results[] | select(.command == \$n) | $2" "$JSON"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f ms", s * 1000 }'; }

ingest_mean=$(figure 'ctool ingest' .mean)
plain_mean=$(figure 'plain read_csv' .mean)
validate_mean=$(figure 'ctool validate' .mean)
ingest_cpu=$(figure 'ctool ingest' '.user + .system')
plain_cpu=$(figure 'plain read_csv' '.user + .system')
validate_cpu=$(figure 'ctool validate' '.user + .system')

summary=$(
	cat <<EOF

$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')),
$(bin/ctool --version), products file of $ROWS rows, $(du -h "$CSV" | cut -f1).

| ratio | wall (mean) | wall (min) | CPU (user+sys) |
| --- | --- | --- | --- |
| ctool ingest / plain read_csv | $(ratio "$ingest_mean" "$plain_mean") | $(ratio "$(figure 'ctool ingest' .min)" "$(figure 'plain read_csv' .min)") | $(ratio "$ingest_cpu" "$plain_cpu") |
| ctool validate / ctool ingest | $(ratio "$validate_mean" "$ingest_mean") | $(ratio "$(figure 'ctool validate' .min)" "$(figure 'ctool ingest' .min)") | $(ratio "$validate_cpu" "$ingest_cpu") |

Means: ctool ingest $(ms "$ingest_mean"), plain read_csv $(ms "$plain_mean"), ctool validate $(ms "$validate_mean");
ingest less validate $(ms "$(awk -v a="$ingest_mean" -v b="$validate_mean" 'BEGIN { print a - b }')").

Commands (from the repository root; each ingest and load starts from no database file):

\`\`\`sh
bin/ctool ingest --input $DIR --db bench/out/ingest.duckdb
bench/out/plainload $CSV bench/out/plain.duckdb
bin/ctool validate --input $DIR
\`\`\`
EOF
)
# hyperfine wrote the table; put a title above it and the figures that matter below it.
{
	printf '# ctool ingest vs a plain DuckDB read_csv load (%s rows)\n\n' "$ROWS"
	cat "$RESULT"
	printf '%s\n' "$summary"
} >"$RESULT.tmp"
mv "$RESULT.tmp" "$RESULT"
say "results in $RESULT"
printf '%s\n' "$summary"
