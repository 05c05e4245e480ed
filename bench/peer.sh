#!/usr/bin/env bash
# Peer benchmark: `ctool mcp` against DBHub (@bytebase/dbhub, pinned; a popular MCP database server) on
# the same three tables, one client driving both (bench/peer): stdio latency per call in interleaved
# blocks, HTTP throughput at 8 and 32 clients, and resident memory of each server with its children.
# DBHub runs read-only with max_rows = 10 on a SQLite copy of the build made from input/. Not part of
# `make test`: it installs DBHub from npm into a cache directory. Writes bench/results/peer.md.
#
# Environment: ROUNDS (default 3), BLOCKS (default 10), BLOCK (calls per block, default 50),
# HTTP_SECONDS (per client count per server, default 5), SETTLE_SECONDS (how long after the HTTP
# load memory is read again, default 20: ctool mcp retires a burst's extra workers after 15 s idle), PEER_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/ctool-peer).
#
# SCALE=N (or a list, "1000 100000 1000000") runs bench/peer-scale.sh instead: products grown to N rows.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -n ${SCALE:-} ]]; then
	exec bench/peer-scale.sh
fi

ROUNDS=${ROUNDS:-3}
BLOCKS=${BLOCKS:-10}
BLOCK=${BLOCK:-50}
HTTP_SECONDS=${HTTP_SECONDS:-5}
SETTLE_SECONDS=${SETTLE_SECONDS:-20}
CACHE=${PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctool-peer}
RESULT=bench/results/peer.md

# shellcheck source=bench/lib.sh
source bench/lib.sh

need_tools sqlite3
need_dbhub

build_helpers peer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "ingesting input/ into $tmp/ctool.duckdb and copying its tables to $tmp/peer.sqlite"
bin/ctool ingest --input input --db "$tmp/ctool.duckdb" >/dev/null
bench/out/peer sqlite -db "$tmp/ctool.duckdb" -out "$tmp/peer.sqlite" >/dev/null
dbhub_config "$tmp/peer.sqlite" "$tmp/dbhub.toml"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average $load_before; running $ROUNDS interleaved rounds"
table=$(bench/out/peer run -rounds "$ROUNDS" -blocks "$BLOCKS" -block "$BLOCK" -http "${HTTP_SECONDS}s" -settle "${SETTLE_SECONDS}s" \
	-ctool "bin/ctool mcp --db $tmp/ctool.duckdb" \
	-peer "$NODE $DBHUB --transport=stdio --config=$tmp/dbhub.toml")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	printf '# ctool mcp vs DBHub %s: sample data\n\n' "$DBHUB_VERSION"
	printf '%s, %s cores (%s), load average %s before the run and %s after, %s, node %s.\n\n' \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
		"$load_before" "$load_after" "$(bin/ctool --version)" "$("$NODE" --version)"
	printf 'Medians of %s interleaved rounds; the last column lists each round.\n\n%s\n\n' "$ROUNDS" "$table"
	cat <<'TEXT'
The queries (`%d` is a number that changes with every call, so that no two calls send the same text),
the same text to both servers: ctool's search_stores, search_events and search_products, DBHub's
execute_sql; before timing, both must return the same number of rows.

- stores: `SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'`
- events: `SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date`
- products: `SELECT product_name, product_description FROM products WHERE product_description LIKE '%1,000円%' AND product_name <> 'X-%d'`

DBHub reads a SQLite copy of the same tables (booleans as 0/1, lists as text) through its execute_sql
tool, read-only, max_rows = 10. ctool runs its guard and a query worker per call, as in production.
HTTP: each client its own session, the three queries in turn, one call at a time; calls/s over the
timed window after a fifth of it untimed; the servers are loaded one at a time. Memory: the peak of the
summed resident sets of the server and its child processes, sampled every 50 ms during its HTTP load,
and both sums, resident and proportional, once the load has been over for SETTLE_SECONDS. A resident
set counts the pages a process shares with others (ctool's workers are the same binary: about 44 MB of
its code each) once per process; the proportional set divides them among the sharers.

Command (from the repository root; `make bench-peer` builds first):

```sh
bench/peer.sh    # ROUNDS=3 BLOCKS=10 BLOCK=50 HTTP_SECONDS=5 SETTLE_SECONDS=20
```
TEXT
} >"$RESULT"
say "results in $RESULT"
cat "$RESULT"
