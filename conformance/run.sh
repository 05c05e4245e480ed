#!/usr/bin/env bash
# MCP conformance of `ctool mcp`, with the protocol's own tools (not part of `make test`: it installs
# npm packages). Installs Node 22, @modelcontextprotocol/conformance and @modelcontextprotocol/inspector-cli
# from the npm registry into a cache directory, ingests input/ into a temporary database, then
#
# 1. runs the conformance suite's server scenarios that apply to ctool against `ctool mcp --http
#    127.0.0.1:0`, under both protocol revisions it serves: 2025-11-25 (initialize handshake) and
#    2026-07-28 (stateless, Mcp-Method/Mcp-Name headers, cache hints), the schema resources included;
# 2. lists the tools and calls each of them, and a refused query, with the inspector's CLI over stdio.
#
# Scenarios that do not apply to ctool, and why (`conformance list --server` lists them all):
# - tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content, -with-logging,
#   -with-progress, -sampling, -elicitation, tools-call-error, json-schema-2020-12,
#   elicitation-sep1034-defaults, elicitation-sep1330-enums, resources-read-text, -read-binary,
#   resources-templates-read, prompts-*, completion-complete, input-required-result-*: each calls a
#   tool, resource or prompt of the suite's own fixture (test_simple_text, test_error_handling,
#   json_schema_2020_12_tool, test://..., test_prompt...), which ctool is not to imitate with fake ones.
# - logging-set-level, resources-subscribe, -unsubscribe: capabilities ctool does not declare (it sends
#   no log messages; its resources do not change while it runs).
# - server-session-lifecycle, server-sse-polling, server-sse-multiple-streams: sessions and event
#   streams; ctool's HTTP side is stateless and answers plain JSON.
# - http-custom-header-server-validation: needs a tool with x-mcp-header parameters; ctool has none.
# - sep-2640-skills-*, tasks-*: extensions ctool does not implement.
# In server-stateless, four checks need the fixture's diagnostic tools (test_missing_capability,
# test_streaming_elicitation, test_logging_tool) and report themselves "not testable": they are listed
# in conformance/expected-failures.yml, per check, so that every other check of the scenario counts.
#
# Exits non-zero if any check fails. Reports land in $OUT (default bench/out/conformance).
# Environment: CONFORMANCE_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/ctool-conformance), OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

CONFORMANCE_VERSION=0.2.0-alpha.12
INSPECTOR_VERSION=1.0.3
NODE_VERSION=22.23.3
# REVISION:scenario, each run at that revision's wire.
SCENARIOS=(
	2025-11-25:server-initialize 2025-11-25:ping 2025-11-25:tools-list 2025-11-25:dns-rebinding-protection
	2026-07-28:server-stateless 2026-07-28:tools-list 2026-07-28:caching 2026-07-28:http-header-validation
	2026-07-28:dns-rebinding-protection
	2025-11-25:resources-list 2026-07-28:resources-list 2026-07-28:sep-2164-resource-not-found
)
BASELINE=$ROOT/conformance/expected-failures.yml
CACHE=${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctool-conformance}
OUT=${OUT:-bench/out/conformance}

say() { printf '==> %s\n' "$*" >&2; }
failures=0
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# --- the tools, pinned, in the cache ------------------------------------------------------------
command -v npm >/dev/null || { echo "conformance/run.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
manifest=$(printf '{"private": true, "dependencies": {"node": "%s", "@modelcontextprotocol/conformance": "%s", "@modelcontextprotocol/inspector-cli": "%s"}}\n' \
	"$NODE_VERSION" "$CONFORMANCE_VERSION" "$INSPECTOR_VERSION")
mkdir -p "$CACHE"
if [[ ! -x $CACHE/node_modules/.bin/conformance || ! -x $CACHE/node_modules/.bin/node || $(cat "$CACHE/package.json" 2>/dev/null) != "$manifest" ]]; then
	say "installing node@$NODE_VERSION, conformance@$CONFORMANCE_VERSION and inspector-cli@$INSPECTOR_VERSION into $CACHE"
	printf '%s\n' "$manifest" >"$CACHE/package.json"
	# The node package's install script puts the Node binary (itself an npm package) in place.
	npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error
fi
export PATH=$CACHE/node_modules/.bin:$PATH
say "node $(node --version), conformance $(conformance --version)"

# --- a database and the server -----------------------------------------------------------------
[[ -x bin/ctool ]] || make build
tmp=$(mktemp -d)
server=
cleanup() {
	[[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
DB=$tmp/ctool.duckdb
say "ingesting input/ into $DB"
bin/ctool ingest --input input --db "$DB" >/dev/null
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

bin/ctool mcp --db "$DB" --http 127.0.0.1:0 2>"$OUT/server.log" &
server=$!
url=
for _ in $(seq 100); do
	url=$(sed -n '1s/.*"serving":"\(http[^"]*\)".*/\1/p' "$OUT/server.log")
	[[ -n $url ]] && break
	kill -0 "$server" 2>/dev/null || { cat "$OUT/server.log" >&2; echo "ctool mcp --http exited" >&2; exit 1; }
	sleep 0.1
done
[[ -n $url ]] || { echo "ctool mcp --http did not say where it listens" >&2; exit 1; }
say "ctool mcp serves $url"

# --- 1. the conformance suite's scenarios over streamable HTTP ---------------------------------
for entry in "${SCENARIOS[@]}"; do
	revision=${entry%%:*} scenario=${entry#*:}
	say "conformance server --spec-version $revision --scenario $scenario"
	if ! conformance server --url "$url" --spec-version "$revision" --scenario "$scenario" --expected-failures "$BASELINE" \
		-o "$OUT/$revision" >"$OUT/$revision-$scenario.txt" 2>&1; then
		fail "scenario $scenario at $revision"
	fi
	grep -E 'SUCCESS|FAILURE|WARNING|Passed:|expected' "$OUT/$revision-$scenario.txt" | sed 's/\x1b\[[0-9;]*m//g' >&2 || true
done

# --- 2. the inspector's CLI over stdio ---------------------------------------------------------
# inspector-cli 1.0.3 finds its own package.json through the working directory's parent, so it runs
# from the cache's node_modules; ctool and the database are given by absolute path.
inspect() {
	(cd "$CACHE/node_modules" && mcp-inspector-cli --cli "$ROOT/bin/ctool" mcp --db "$DB" "$@" 2>>"$OUT/inspector.err")
}
# expect NAME JS: runs the JavaScript condition on the inspector's JSON answer (as r).
expect() {
	local name=$1 cond=$2 answer=$3
	if node -e "const r = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.exit(($cond) ? 0 : 1)" <<<"$answer"; then
		printf '    ok: %s\n' "$name" >&2
	else
		fail "inspector: $name: $answer"
	fi
}
say "inspector --cli over stdio"
: >"$OUT/inspector.err"
answer=$(inspect --method tools/list) || fail "inspector: tools/list did not run"
expect 'tools/list: the four tools, read-only' \
	"r.tools.map(t => t.name).sort().join() === 'get_user_profile,search_events,search_products,search_stores' && r.tools.every(t => t.annotations.readOnlyHint && t.outputSchema)" "$answer"
answer=$(inspect --method tools/call --tool-name search_stores --tool-arg "sql_query=SELECT store_name, category FROM stores WHERE category = 'cafe'") || fail "inspector: search_stores did not run"
expect 'search_stores' "!r.isError && r.structuredContent.count > 0 && Object.keys(r.structuredContent.results[0]).join() === 'store_name,category'" "$answer"
answer=$(inspect --method tools/call --tool-name search_events --tool-arg "sql_query=SELECT event_name FROM events_typed WHERE is_free") || fail "inspector: search_events did not run"
expect 'search_events' "!r.isError && r.structuredContent.count > 0" "$answer"
answer=$(inspect --method tools/call --tool-name search_products --tool-arg "sql_query=SELECT product_name FROM products WHERE store_name = 'no such store'") || fail "inspector: search_products did not run"
expect 'search_products, zero rows' "!r.isError && r.structuredContent.count === 0 && r.structuredContent.message" "$answer"
answer=$(inspect --method tools/call --tool-name get_user_profile --tool-arg profile_id=user_criollo_heavy) || fail "inspector: get_user_profile did not run"
expect 'get_user_profile' "!r.isError && r.structuredContent.profile_id === 'user_criollo_heavy'" "$answer"
answer=$(inspect --method tools/call --tool-name get_user_profile --tool-arg profile_id=nonexistent_user) || fail "inspector: get_user_profile not found did not run"
expect 'get_user_profile, not found' "r.isError && JSON.parse(r.content[0].text).kind === 'not_found'" "$answer"
answer=$(inspect --method tools/call --tool-name search_stores --tool-arg "sql_query=DROP TABLE stores") || fail "inspector: a refused query did not run"
expect 'search_stores, refused' "r.isError && JSON.parse(r.content[0].text).kind === 'refused'" "$answer"

if ((failures > 0)); then
	echo "conformance: $failures check(s) failed; reports in $OUT" >&2
	exit 1
fi
echo "conformance: every scenario and inspector check passed; reports in $OUT" >&2
