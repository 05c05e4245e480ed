#!/usr/bin/env bash
# MCP benchmark over HTTP with auth: the latency of a tool call on `ctool mcp --http --auth-issuer`
# with a bearer token against the same call on `ctool mcp --http` without auth, on the sample data.
# Ingests input/ into a temporary database, runs bench/mcpauth, and writes bench/results/mcp-auth.md.
#
# Environment: AUTH_CALLS (timed calls per tool and server, default 2000), AUTH_WARMUP (untimed calls
# first, default 50).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

AUTH_CALLS=${AUTH_CALLS:-2000}
AUTH_WARMUP=${AUTH_WARMUP:-50}
RESULT=bench/results/mcp-auth.md

# shellcheck source=bench/lib.sh
source bench/lib.sh

build_helpers mcpauth
sample_build

cmd="bench/out/mcpauth -ctool bin/ctool -db DB -calls $AUTH_CALLS -warmup $AUTH_WARMUP"
say "timing: ${cmd/DB/$tmp/ctool.duckdb}"
load=$(cut -d' ' -f1-3 /proc/loadavg)
table=$(bench/out/mcpauth -ctool bin/ctool -db "$tmp/ctool.duckdb" -calls "$AUTH_CALLS" -warmup "$AUTH_WARMUP")
{
	printf '# ctool mcp over HTTP: a call with a bearer token against one without\n\n'
	printf '%s, %s cores (%s), load average %s before the run, %s.\n\n' \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
		"$load" "$(bin/ctool --version)"
	printf '%s\n\n' "$table"
	cat <<EOF
Two servers on one database: \`ctool mcp --http 127.0.0.1:0\` and the same with \`--auth-issuer ISSUER
--resource URL\` (its rate limits raised so the benchmark's own pace is never refused). The issuer runs
in the benchmark's process on loopback (discovery and a JWKS of one ES256 key) and mints one token with
both scopes; the server checks its signature on the first call and finds it in its cache of verified
tokens on every other, so the difference is the per-call cost of auth: the header, the cache lookup,
the caller's fair share, reading the JSON-RPC body for the tool's scope, and the scope checked again
in the tool. Calls alternate between the two servers, one at a time, over kept-alive connections; a
call is timed from sending its POST to reading its whole answer; ping runs no tool. Aim: at most
+0.1 ms at p50.

Command (from the repository root; \`make bench-mcp\` builds first and runs bench/mcp.sh too):

\`\`\`sh
bench/mcp-auth.sh    # $cmd
\`\`\`
EOF
} >"$RESULT"
say "results in $RESULT"
cat "$RESULT"
