#!/usr/bin/env bash
# Validate benchmark: how fast does `ctool validate` read the 1,000,000-row products file, in rows/s
# and MB/s, beside a plain DuckDB read_csv of the same file, and how long does `validate --against`
# take against a build of the same data?
#
# Reuses (or generates) bench/out/input-$ROWS as bench/ingest.sh does, builds bench/out/against.duckdb
# from it once (untimed), then times in ONE hyperfine run, side by side:
#   ctool validate            bin/ctool validate --input DIR
#   plain read_csv            bench/out/csvquery DIR "SELECT count(*), sum(...every column...) FROM read_csv(CSV, ...)"
#   ctool validate --against  bin/ctool validate --input DIR --against bench/out/against.duckdb
# Results: bench/results/validate.md (validate-${ROWS}rows.md for another ROWS), raw JSON in bench/out.
#
# Environment: ROWS (default 1000000), RUNS (default 5), WARMUP (default 2), REGEN=1 to rewrite the input.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-2}
DIR=bench/out/input-$ROWS
CSV=$DIR/filtered_product_data.csv
AGAINST=bench/out/against-$ROWS.duckdb

if [[ $ROWS == 1000000 ]]; then
	RESULT=bench/results/validate.md
else
	RESULT=bench/results/validate-${ROWS}rows.md
fi
JSON=bench/out/validate-$ROWS.json

# shellcheck source=bench/lib.sh
source bench/lib.sh

need_tools hyperfine jq

build_helpers gen csvquery

generate_input "$DIR" "$ROWS"

say "building $AGAINST from the same input (untimed), the build --against compares with"
rm -f "$AGAINST" "${AGAINST%.duckdb}".profiles-*.duckdb
bin/ctool ingest --input "$DIR" --db "$AGAINST" >/dev/null

# Every column is read, so DuckDB cannot skip parsing any of them.
plain="SELECT count(*), sum(strlen(store_id) + strlen(store_name) + strlen(product_name) + coalesce(strlen(product_description), 0) + coalesce(strlen(tag), 0)) FROM read_csv('$CSV', header = true, all_varchar = true)"

say "timing ctool validate, the plain read_csv and validate --against side by side"
hyperfine --style basic --warmup "$WARMUP" --min-runs "$RUNS" \
	--export-markdown "$RESULT" --export-json "$JSON" \
	-n 'ctool validate' "bin/ctool validate --input $DIR" \
	-n 'plain read_csv' "bench/out/csvquery $DIR \"$plain\"" \
	-n 'ctool validate --against' "bin/ctool validate --input $DIR --against $AGAINST"

figure() { jq -r --arg n "$1" ".results[] | select(.command == \$n) | $2" "$JSON"; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f ms", s * 1000 }'; }

bytes=$(stat -c %s "$CSV")
v_mean=$(figure 'ctool validate' .mean)
v_min=$(figure 'ctool validate' .min)
p_mean=$(figure 'plain read_csv' .mean)
a_mean=$(figure 'ctool validate --against' .mean)
a_max=$(figure 'ctool validate --against' .max)
v_cpu=$(figure 'ctool validate' '.user + .system')
p_cpu=$(figure 'plain read_csv' '.user + .system')
a_cpu=$(figure 'ctool validate --against' '.user + .system')

summary=$(
	cat <<EOS

$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), load
average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(bin/ctool --version), products file of $ROWS rows, $bytes bytes.

| command | wall (mean) | rows/s | MB/s | CPU (user+sys) |
| --- | --- | --- | --- | --- |
| ctool validate | $(ms "$v_mean") (min $(ms "$v_min")) | $(rate "$ROWS" "$v_mean") | $(mbps "$bytes" "$v_mean") (min-based $(mbps "$bytes" "$v_min")) | $(ms "$v_cpu") |
| plain read_csv | $(ms "$p_mean") | $(rate "$ROWS" "$p_mean") | $(mbps "$bytes" "$p_mean") | $(ms "$p_cpu") |
| ctool validate --against (a build of the same data) | $(ms "$a_mean") (max $(ms "$a_max")) | | | $(ms "$a_cpu") |

ctool validate / plain read_csv: $(ratio "$v_mean" "$p_mean") (wall), $(ratio "$v_cpu" "$p_cpu") (CPU).
Aims: validate at 400 MB/s on 2 cores; --against within 2 s.

Commands (from the repository root):

\`\`\`sh
bin/ctool validate --input $DIR
bench/out/csvquery $DIR "$plain"
bin/ctool validate --input $DIR --against $AGAINST
\`\`\`
EOS
)
{
	printf '# ctool validate vs a plain DuckDB read_csv (%s rows)\n\n' "$ROWS"
	cat "$RESULT"
	printf '%s\n' "$summary"
} >"$RESULT.tmp"
mv "$RESULT.tmp" "$RESULT"
say "results in $RESULT"
printf '%s\n' "$summary"
