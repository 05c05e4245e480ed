#!/usr/bin/env bash
# Peer benchmark as the data grows: `ctool mcp` against DBHub (bench/peer.sh) and plain DuckDB on
# ctool's own file (the floor), on products grown by bench/gen to each size in SCALE, with the four
# queries a visitor's agent asks of a big catalogue (bench/peer/queries.go). Per size:
#
#   - bench/out/input-N: the generated input (shared with bench/ingest.sh), reused unless REGEN=1;
#   - bench/out/peer-scale/N/ctool.duckdb: `bin/ctool ingest` of it, its wall time recorded, reused
#     while the input and the source the build is made by (./ingest/build and what it imports, go.sum) are
#     unchanged, REBUILD=1 to redo it;
#   - bench/out/peer-scale/N/peer.sqlite: DBHub's SQLite copy of the build (products_typed a table of
#     the values ctool computes, so both sides run the same SQL text), indexed as a careful SQLite
#     user would: tag and store_id, products_typed's price_yen, then ANALYZE; redone with the build;
#   - bench/out/peer scale: stdio latency in interleaved blocks on ctool mcp, DBHub and the floor at 1
#     and at every core's thread, then HTTP throughput at CLIENTS clients on ctool mcp and DBHub.
#
# Writes bench/results/peer-scale-N.md. Run by `make bench-peer SCALE=N` (or SCALE="1000 100000").
# Environment: SCALE (sizes, default "1000 100000 1000000"), ROUNDS (3), BLOCKS (6), BLOCK (the most
# calls in a block, 50), BUDGET (seconds of calls per side and query in a round, 3), WARMUP (20),
# HTTP_SECONDS (5), CLIENTS (32), CTOOL_FLAGS (added to ctool mcp's command line; default --timeout 1m,
# its most, since DBHub stops no query: a slow call on a loaded machine is measured, not cut off at
# 5 s, which would end the run; CTOOL_FLAGS= keeps ctool's default), REGEN=1, REBUILD=1, PEER_CACHE as
# bench/peer.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SCALE=${SCALE:-1000 100000 1000000}
ROUNDS=${ROUNDS:-3}
BLOCKS=${BLOCKS:-6}
BLOCK=${BLOCK:-50}
BUDGET=${BUDGET:-3}
WARMUP=${WARMUP:-20}
HTTP_SECONDS=${HTTP_SECONDS:-5}
CLIENTS=${CLIENTS:-32}
CTOOL_FLAGS=${CTOOL_FLAGS---timeout 1m}
CACHE=${PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctool-peer}

# shellcheck source=bench/lib.sh
source bench/lib.sh

need_tools sqlite3
need_dbhub
build_helpers gen peer plainquery

# build_source is a digest of what a build is made by: the Go files and embedded files (migrations) of
# ./ingest/build and every package of this module it imports, and go.sum (DuckDB's version).
build_source() {
	go list -deps -f '{{if .Module}}{{if .Module.Main}}{{range .GoFiles}}{{$.Dir}}/{{.}} {{end}}{{range .EmbedFiles}}{{$.Dir}}/{{.}} {{end}}{{end}}{{end}}' ./ingest/build |
		tr ' ' '\n' | grep -v '^$' | sort | xargs cat go.sum | sha256sum | cut -c1-16
}

for rows in $SCALE; do
	[[ $rows =~ ^[0-9]+$ ]] || { echo "bench/peer-scale.sh: SCALE holds $rows, not a row count" >&2; exit 2; }
	input=bench/out/input-$rows
	dir=bench/out/peer-scale/$rows
	result=bench/results/peer-scale-$rows.md
	generate_input "$input" "$rows"
	mkdir -p "$dir"
	stamp="$(build_source) $(sha256sum "$input/filtered_product_data.csv" | cut -c1-16)"
	if [[ ${REBUILD:-} == 1 || ${REGEN:-} == 1 || ! -f $dir/peer.sqlite || $(cat "$dir/stamp" 2>/dev/null) != "$stamp" ]]; then
		rm -f "$dir"/ctool.* "$dir/peer.sqlite" "$dir/stamp"
		say "ingesting $input into $dir/ctool.duckdb"
		start=$(date +%s.%N)
		bin/ctool ingest --input "$input" --db "$dir/ctool.duckdb" >/dev/null
		end=$(date +%s.%N)
		printf '%s by %s, %s s, load average %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(bin/ctool --version)" \
			"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" "$(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/ingest"
		say "copying it to $dir/peer.sqlite, indexed"
		bench/out/peer sqlite -db "$dir/ctool.duckdb" -out "$dir/peer.sqlite" -tables stores,events_typed,products,products_typed \
			-index 'products(tag)' -index 'products(store_id)' \
			-index 'products_typed(tag)' -index 'products_typed(store_id)' -index 'products_typed(price_yen)' -analyze
		printf '%s\n' "$stamp" >"$dir/stamp"
	else
		say "reusing $dir (made $(cut -d, -f1 "$dir/ingest"); REBUILD=1 to redo it)"
	fi
	dbhub_config "$PWD/$dir/peer.sqlite" "$dir/dbhub.toml"
	products_typed=$(bench/out/plainquery "$dir/ctool.duckdb" "SELECT table_type AS t FROM information_schema.tables WHERE table_name = 'products_typed'" | grep -o '"t": "[^"]*"' | cut -d'"' -f4)

	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	say "$rows rows: load average $load_before; running $ROUNDS interleaved rounds"
	# shellcheck disable=SC2086 # CTOOL_FLAGS is words
	table=$(bench/out/peer scale -rounds "$ROUNDS" -blocks "$BLOCKS" -block "$BLOCK" -budget "${BUDGET}s" -warmup "$WARMUP" \
		-http "${HTTP_SECONDS}s" -clients "$CLIENTS" -db "$dir/ctool.duckdb" \
		-ctool "bin/ctool mcp --db $dir/ctool.duckdb $CTOOL_FLAGS" \
		-peer "$NODE $DBHUB --transport=stdio --config=$dir/dbhub.toml")
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)

	{
		printf '# ctool mcp vs DBHub %s and plain DuckDB: %s products\n\n' "$DBHUB_VERSION" "$rows"
		printf '%s, %s cores (%s), load average %s before the run and %s after, %s, node %s.\n' \
			"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
			"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
			"$load_before" "$load_after" "$(bin/ctool --version)" "$("$NODE" --version)"
		printf 'Build: %s rows of products (%s of CSV), ctool.duckdb %s, peer.sqlite %s; ingested %s; products_typed is a %s.\n\n' \
			"$rows" "$(du -h "$input/filtered_product_data.csv" | cut -f1)" "$(du -h "$dir/ctool.duckdb" | cut -f1)" \
			"$(du -h "$dir/peer.sqlite" | cut -f1)" "$(cat "$dir/ingest")" "${products_typed:-?}"
		cat <<'TEXT'
The machine is shared: other engineers' tests run on its two cores (load 5–10), so absolute times move
from run to run. What counts are the ratios: every side's blocks are interleaved in each round, so
all of them see the same load.

TEXT
		printf '%s\n\n' "$table"
		cat <<'TEXT'
The queries, the same text on every side (`%d` changes with every call, so that no two calls send the
same text; ctool answers with search_products, DBHub with execute_sql):

TEXT
		bench/out/peer queries | sed 's/^/- /'
		cat <<'TEXT'

Before timing, every side must return the same rows: the same rows for the counts, the same prices for
the price range (which of the tied rows a LIMIT keeps may differ), ten rows for the search.

- ctool mcp: its guard and a query worker per call (one DuckDB thread), as in production, with the
  flags of the command below (by default `--timeout 1m`: DBHub stops no query, and ctool's default
  5 s limit cuts off the slowest calls under load, over HTTP most of all).
- DBHub: execute_sql, read-only, max_rows = 10, on a SQLite copy of the build: the same tables, and
  products_typed as a table of the values ctool's build holds; indexes on products and products_typed
  tag and store_id and products_typed price_yen, then ANALYZE.
- DuckDB, N threads (the floor): the statement through database/sql and the duckdb driver, in the
  measuring process, on ctool's file opened read-only; every row read, nothing encoded. The 1-thread
  floor compares with ctool's worker; the other uses every core, DuckDB's default.
- HTTP: each client its own session, the four queries in turn, one call at a time; calls/s of the
  calls that succeeded over the timed window, after a fifth of it untimed; one server at a time.

Command (from the repository root; `make bench-peer SCALE=N` builds first):

```sh
TEXT
		printf 'SCALE=%s bench/peer.sh    # ROUNDS=%s BLOCKS=%s BLOCK=%s BUDGET=%s WARMUP=%s HTTP_SECONDS=%s CLIENTS=%s%s\n```\n' \
			"$rows" "$ROUNDS" "$BLOCKS" "$BLOCK" "$BUDGET" "$WARMUP" "$HTTP_SECONDS" "$CLIENTS" "${CTOOL_FLAGS:+ CTOOL_FLAGS='$CTOOL_FLAGS'}"
	} >"$result"
	say "results in $result"
	cat "$result"
done
