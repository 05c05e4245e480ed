#!/usr/bin/env bash
# Query benchmark: what one `ctool query` call costs above the process floor (`ctool --version`), and
# how it compares with the seeds' old approach (bench/out/csvquery: a fresh in-memory DuckDB that reads
# the CSV file again for every call), on the sample data and on a generated $ROWS-row products file.
#
# 1. Sample data: ingests input/ into bench/out/sample.duckdb, then times in ONE hyperfine run the floor,
#    the products query through ctool and through csvquery, and a stores query through both.
#    Results: bench/results/query-sample.md
# 2. Generated data: ingests bench/out/input-$ROWS into bench/out/big.duckdb, then times in ONE run the
#    floor, the products query through ctool and through csvquery, and a sorted products query (a seed
#    example with ORDER BY, which must read every row) through both.
#    Results: bench/results/query-1m.md (query-${ROWS}rows.md for another ROWS)
# Raw JSON exports stay in bench/out.
#
# Environment: ROWS (default 1000000), RUNS (at least this many timed runs, default 20 on the sample
# data and a quarter of that, at least 5, on the generated data), WARMUP (default 3), REGEN=1 to
# rewrite the generated input even if it exists.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=${ROWS:-1000000}
RUNS=${RUNS:-20}
WARMUP=${WARMUP:-3}
BIG_RUNS=$((RUNS / 4 > 5 ? RUNS / 4 : 5))
DIR=bench/out/input-$ROWS
STORES_CSV=input/filtered_store_data_カテゴリー情報あり.csv

if [[ $ROWS == 1000000 ]]; then
	BIG_RESULT=bench/results/query-1m.md
else
	BIG_RESULT=bench/results/query-${ROWS}rows.md
fi
SAMPLE_RESULT=bench/results/query-sample.md

# The agent's query as the seeds wrote it; ctool caps it at 10 rows, the old approach needs the LIMIT.
PRODUCTS_SQL="SELECT product_name, product_description FROM 'filtered_product_data.csv' WHERE product_description LIKE '%1,000円%'"
STORES_SQL="SELECT store_name FROM stores WHERE category = 'cafe'"
# The same query with the label in other words: nothing matches, and the answer's hint costs probes.
# Only a query that finds nothing pays for them; STORES_SQL beside it shows what a found row costs.
MISS_SQL="SELECT store_name FROM stores WHERE category = 'カフェ'"
# csvquery_sql DIR: the same products query, reading the file by its path.
csvquery_sql() {
	printf "SELECT product_name, product_description FROM read_csv('%s/filtered_product_data.csv') WHERE product_description LIKE '%%1,000円%%' LIMIT 10" "$1"
}
CSV_STORES_SQL="SELECT store_name FROM read_csv('$STORES_CSV') WHERE category = 'cafe' LIMIT 10"
# A seed example with ORDER BY: no early stop after 10 matches, so both sides read every row. Timed on
# the generated data only, beside the query above, to show the cost when LIMIT cannot cut the scan.
SORTED_SQL="SELECT product_name, product_description, tag FROM 'filtered_product_data.csv' WHERE tag = 'フード' AND product_description LIKE '%500円%' ORDER BY product_name"
csvquery_sorted_sql() {
	printf "SELECT product_name, product_description, tag FROM read_csv('%s/filtered_product_data.csv') WHERE tag = 'フード' AND product_description LIKE '%%500円%%' ORDER BY product_name LIMIT 10" "$1"
}

# shellcheck source=bench/lib.sh
source bench/lib.sh

need_tools hyperfine jq

[[ -x bin/ctool ]] || make build
if ! bin/ctool query products --help >/dev/null 2>&1; then
	echo "bench/query.sh: bin/ctool has no 'query products' command; run make build" >&2
	exit 1
fi
build_helpers gen csvquery

generate_input "$DIR" "$ROWS"

# ingest_into DIR DB: a fresh database, so the benchmark never reads a stale one.
ingest_into() {
	rm -f "$2" "$2.wal" "${2%.duckdb}".profiles-*.duckdb
	say "ingesting $1 into $2"
	bin/ctool ingest --input "$1" --db "$2" >/dev/null
}
ingest_into input bench/out/sample.duckdb
ingest_into "$DIR" bench/out/big.duckdb

# check_pair NAME DATASET DB SQL DIR CSV_SQL: runs both sides once and insists they return the same
# number of rows, so the timed commands provably do the same work (and none fails inside hyperfine).
check_pair() {
	local name=$1 ctool_count csv_count
	ctool_count=$(bin/ctool query "$2" --db "$3" --format json "$4" | jq .count)
	csv_count=$(bench/out/csvquery "$5" "$6" | jq .count)
	if [[ $ctool_count != "$csv_count" || $ctool_count == 0 ]]; then
		echo "bench/query.sh: $name: ctool query returned $ctool_count rows, csvquery $csv_count" >&2
		exit 1
	fi
	say "$name: both return $ctool_count rows"
}
check_pair 'sample products' products bench/out/sample.duckdb "$PRODUCTS_SQL" input "$(csvquery_sql input)"
check_pair 'sample stores' stores bench/out/sample.duckdb "$STORES_SQL" input "$CSV_STORES_SQL"
check_pair "$ROWS-row products" products bench/out/big.duckdb "$PRODUCTS_SQL" "$DIR" "$(csvquery_sql "$DIR")"
check_pair "$ROWS-row sorted products" products bench/out/big.duckdb "$SORTED_SQL" "$DIR" "$(csvquery_sorted_sql "$DIR")"

# Commands run without a shell (-N), so a floor of a few milliseconds is not blurred by a shell start;
# hyperfine splits them into words itself, hence the SQL in double quotes.
ctool_products() { printf 'bin/ctool query products --db %s --format json "%s"' "$1" "$PRODUCTS_SQL"; }
csvquery_products() { printf 'bench/out/csvquery %s "%s"' "$1" "$(csvquery_sql "$1")"; }
ctool_sorted() { printf 'bin/ctool query products --db %s --format json "%s"' "$1" "$SORTED_SQL"; }
csvquery_sorted() { printf 'bench/out/csvquery %s "%s"' "$1" "$(csvquery_sorted_sql "$1")"; }
FLOOR='bin/ctool --version'
SAMPLE_STORES="bin/ctool query stores --db bench/out/sample.duckdb --format json \"$STORES_SQL\""
CSV_SAMPLE_STORES="bench/out/csvquery input \"$CSV_STORES_SQL\""
SAMPLE_MISS="bin/ctool query stores --db bench/out/sample.duckdb --format json \"$MISS_SQL\""

say "sample data: timing the floor, ctool query and csvquery side by side ($WARMUP warmups, at least $RUNS runs each)"
hyperfine -N --style basic --warmup "$WARMUP" --min-runs "$RUNS" \
	--export-markdown "$SAMPLE_RESULT" --export-json bench/out/query-sample.json \
	-n 'floor: ctool --version' "$FLOOR" \
	-n 'ctool query products' "$(ctool_products bench/out/sample.duckdb)" \
	-n 'csvquery products' "$(csvquery_products input)" \
	-n 'ctool query stores' "$SAMPLE_STORES" \
	-n 'csvquery stores' "$CSV_SAMPLE_STORES" \
	-n 'ctool query stores, nothing matched (hint)' "$SAMPLE_MISS"

say "$ROWS rows: timing the floor, ctool query and csvquery side by side ($WARMUP warmups, at least $BIG_RUNS runs each)"
hyperfine -N --style basic --warmup "$WARMUP" --min-runs "$BIG_RUNS" \
	--export-markdown "$BIG_RESULT" --export-json "bench/out/query-$ROWS.json" \
	-n 'floor: ctool --version' "$FLOOR" \
	-n 'ctool query products' "$(ctool_products bench/out/big.duckdb)" \
	-n 'csvquery products' "$(csvquery_products "$DIR")" \
	-n 'ctool query sorted' "$(ctool_sorted bench/out/big.duckdb)" \
	-n 'csvquery sorted' "$(csvquery_sorted "$DIR")"

# figure JSON NAME EXPR: a jq expression over one command's entry in a JSON export (seconds).
figure() { jq -r --arg n "$2" ".results[] | select(.command == \$n) | $3" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
# row JSON LABEL A B: a table row of the ratio A/B by mean, by min and by CPU time.
row() {
	printf '| %s | %s | %s | %s |\n' "$2" \
		"$(ratio "$(figure "$1" "$3" .mean)" "$(figure "$1" "$4" .mean)")" \
		"$(ratio "$(figure "$1" "$3" .min)" "$(figure "$1" "$4" .min)")" \
		"$(ratio "$(figure "$1" "$3" '.user + .system')" "$(figure "$1" "$4" '.user + .system')")"
}
# above_floor JSON NAME: the mean time a command spends beyond the floor.
above_floor() {
	ms "$(awk -v a="$(figure "$1" "$2" .mean)" -v b="$(figure "$1" 'floor: ctool --version' .mean)" 'BEGIN { print a - b }')"
}

context="$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $(bin/ctool --version)."

# finish FILE TITLE SUMMARY: hyperfine wrote the table; put a title above it and the ratios below it.
finish() {
	{
		printf '# %s\n\n' "$2"
		cat "$1"
		printf '%s\n' "$3"
	} >"$1.tmp"
	mv "$1.tmp" "$1"
	say "results in $1"
	printf '%s\n' "$3"
}

J=bench/out/query-sample.json
finish "$SAMPLE_RESULT" 'ctool query vs the floor and the old read-the-CSV approach: sample data' "$(
	cat <<EOF

$context
Sample data: $(($(wc -l <input/filtered_product_data.csv) - 1)) lines in the products file, stores from $STORES_CSV.

| ratio | wall (mean) | wall (min) | CPU (user+sys) |
| --- | --- | --- | --- |
$(row "$J" 'ctool query products / floor' 'ctool query products' 'floor: ctool --version')
$(row "$J" 'ctool query stores / floor' 'ctool query stores' 'floor: ctool --version')
$(row "$J" 'csvquery products / ctool query products' 'csvquery products' 'ctool query products')
$(row "$J" 'csvquery stores / ctool query stores' 'csvquery stores' 'ctool query stores')
$(row "$J" 'nothing matched (hint) / ctool query stores' 'ctool query stores, nothing matched (hint)' 'ctool query stores')

Means: floor $(ms "$(figure "$J" 'floor: ctool --version' .mean)"); above the floor: ctool query products
$(above_floor "$J" 'ctool query products'), ctool query stores $(above_floor "$J" 'ctool query stores'),
csvquery products $(above_floor "$J" 'csvquery products'), csvquery stores $(above_floor "$J" 'csvquery stores'),
ctool query stores with nothing matched (the hint's probes) $(above_floor "$J" 'ctool query stores, nothing matched (hint)').

Commands (from the repository root, run without a shell):

\`\`\`sh
$FLOOR
$(ctool_products bench/out/sample.duckdb)
$(csvquery_products input)
$SAMPLE_STORES
$CSV_SAMPLE_STORES
$SAMPLE_MISS
\`\`\`
EOF
)"

J=bench/out/query-$ROWS.json
finish "$BIG_RESULT" "ctool query vs the floor and the old read-the-CSV approach: $ROWS products rows" "$(
	cat <<EOF

$context
Products file of $ROWS rows ($(du -h "$DIR/filtered_product_data.csv" | cut -f1)), database $(du -h bench/out/big.duckdb | cut -f1).

| ratio | wall (mean) | wall (min) | CPU (user+sys) |
| --- | --- | --- | --- |
$(row "$J" 'csvquery products / ctool query products' 'csvquery products' 'ctool query products')
$(row "$J" 'ctool query products / floor' 'ctool query products' 'floor: ctool --version')
$(row "$J" 'csvquery sorted / ctool query sorted (full scan, ORDER BY)' 'csvquery sorted' 'ctool query sorted')
$(row "$J" 'ctool query sorted / floor' 'ctool query sorted' 'floor: ctool --version')

Means: floor $(ms "$(figure "$J" 'floor: ctool --version' .mean)"); above the floor: ctool query products
$(above_floor "$J" 'ctool query products'), csvquery products $(above_floor "$J" 'csvquery products'),
ctool query sorted $(above_floor "$J" 'ctool query sorted'), csvquery sorted $(above_floor "$J" 'csvquery sorted').
The products query stops after 10 matches (about 1 row in 28 matches), so csvquery reads only the
start of the file; the sorted query must read every row on both sides.

Commands (from the repository root, run without a shell):

\`\`\`sh
$FLOOR
$(ctool_products bench/out/big.duckdb)
$(csvquery_products "$DIR")
$(ctool_sorted bench/out/big.duckdb)
$(csvquery_sorted "$DIR")
\`\`\`
EOF
)"
