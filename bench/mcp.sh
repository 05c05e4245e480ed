#!/usr/bin/env bash
# MCP benchmark: the latency of each tool called on a running `ctool mcp` (stdio, one call at a time)
# against the same call made as a `ctool query ... --format json` or `ctool profile` process, on the
# sample data. Ingests input/ into a temporary database, runs bench/mcpcalls, and writes
# bench/results/mcp.md.
#
# Environment: CALLS (timed MCP calls per tool, default 2000), PROCS (timed processes per tool,
# default 100), WARMUP (untimed calls and processes per tool first, default 20).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CALLS=${CALLS:-2000}
PROCS=${PROCS:-100}
WARMUP=${WARMUP:-20}
RESULT=bench/results/mcp.md

# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ -x bin/ctool ]] || make build
if ! bin/ctool mcp --help >/dev/null 2>&1; then
	echo "bench/mcp.sh: bin/ctool has no 'mcp' command; run make build" >&2
	exit 1
fi
mkdir -p bench/out bench/results
say "building bench/out/mcpcalls"
go build -trimpath -ldflags '-s -w' -o bench/out/mcpcalls ./bench/mcpcalls

sample_build

cmd="bench/out/mcpcalls -ctool bin/ctool -db DB -calls $CALLS -procs $PROCS -warmup $WARMUP"
say "timing: ${cmd/DB/$tmp/ctool.duckdb}"
table=$(bench/out/mcpcalls -ctool bin/ctool -db "$tmp/ctool.duckdb" -calls "$CALLS" -procs "$PROCS" -warmup "$WARMUP")

{
	printf '# ctool mcp vs a process per call: sample data\n\n'
	printf '%s, %s cores (%s), load average %s before the run, %s.\n\n' \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$(bin/ctool --version)"
	printf '%s\n\n' "$table"
	cat <<EOF
An MCP call is timed from writing the request on the server's stdin to reading its answer on stdout;
a process from its start to its exit (\`ctool query <dataset> --db DB --format json -- SQL\`,
\`ctool profile --db DB --format json -- user_criollo_heavy\`). Both give the same bytes: checked
before timing. The queries: products \`... FROM 'filtered_product_data.csv' WHERE product_description
LIKE '%1,000円%'\`, stores \`... FROM stores WHERE category = 'cafe'\`, events \`... FROM events_typed
WHERE is_free ORDER BY start_date\`.

Where an MCP call's time goes, from the last two columns, measured in the benchmark's own process on
the same database: "engine.Query" is the guard, the row cap and the query with no MCP around it
(\`profile.Finder.Find\` for get_user_profile); "SQL alone" is \`SELECT * FROM (SQL) LIMIT 11\` run
straight on the open build. MCP call minus engine.Query is the protocol (JSON-RPC over the pipes, the
SDK, the answer's JSON) and the hop to the query worker that runs engine.Query (the request and the
encoded result over its pipes); engine.Query minus SQL alone is the guard: one parse of the SQL by
DuckDB (json_serialize_sql, prepared once per connection) and the walk of its AST.

Command (from the repository root; \`make bench-mcp\` builds first):

\`\`\`sh
bench/mcp.sh    # $cmd
\`\`\`
EOF
} >"$RESULT"
say "results in $RESULT"
cat "$RESULT"
