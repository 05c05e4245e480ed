#!/usr/bin/env bash
# Console benchmark: ctool console on the $ROWS-row products build beside DuckDB alone on the same file,
# in one run (bench/console): the products list's pages (facets, three searches, a sort by price, the
# last page) against the same statements on a plain DuckDB connection (aim: within 3×), each search
# also against plain ILIKE (issue 40 item 4: within 1.5× and under 1 s; the sort and the last page
# under 300 ms); a full CSV export against DuckDB's own COPY ... TO (aim: at least half its speed),
# with the console's memory during the export; and, on a console of its own, its memory after the
# pages (aim: 200 MB) and at its peak during a Parquet export of every product (aim: 300 MB).
# Results: bench/results/console.md (console-${ROWS}rows.md for another ROWS).
#
# Environment: ROWS (default 1000000), RUNS (timed rounds of each page, default 5), REGEN=1 to rewrite
# the generated input.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
DIR=bench/out/input-$ROWS
DB=bench/out/console-$ROWS.duckdb
if [[ $ROWS == 1000000 ]]; then
	RESULT=bench/results/console.md
else
	RESULT=bench/results/console-${ROWS}rows.md
fi

# shellcheck source=bench/lib.sh
source bench/lib.sh

build_helpers gen console
generate_input "$DIR" "$ROWS"
if [[ ! -f $DB || $DIR/filtered_product_data.csv -nt $DB ]]; then
	say "ingesting $DIR into $DB"
	bin/ctool ingest --input "$DIR" --db "$DB" >/dev/null
fi
say "writing the console's statements (internal/console TestBenchStatements)"
CTOOL_BENCH_STATEMENTS=$PWD/bench/out/console-statements.json go test -count=1 -run '^TestBenchStatements$' ./internal/console >/dev/null
say "timing the console beside DuckDB alone (about a minute)"
bench/out/console -ctool bin/ctool -db "$DB" -rounds "$RUNS" -exports 3 -out "$RESULT"
cat "$RESULT"
