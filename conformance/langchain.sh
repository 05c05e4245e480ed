#!/usr/bin/env bash
# The JavaScript LangChain MCP adapter against `ctool mcp` (not part of `make test`: it installs npm
# packages). Installs @langchain/mcp-adapters and its peers, pinned, from the npm registry into a cache
# directory, ingests input/ into a temporary database, starts `ctool mcp --http` on loopback, and runs
# conformance/langchain/check.mjs: over stdio (the adapter starts ctool itself) and over streamable
# HTTP, the four tools are listed and each is called once, with the client configuration of
# docs/clients.md. Prints one line per call; exits non-zero if any answer is not as expected.
# Needs Node.js 20.10 or later and npm. Environment: LANGCHAIN_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/ctool-langchain).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ADAPTERS_VERSION=1.1.4
CORE_VERSION=1.4.0
LANGGRAPH_VERSION=1.7.3
MCP_SDK_VERSION=1.32.2
CACHE=${LANGCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctool-langchain}

say() { printf '==> %s\n' "$*" >&2; }

command -v npm >/dev/null || { echo "conformance/langchain.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
manifest=$(printf '{"private": true, "type": "module", "dependencies": {"@langchain/mcp-adapters": "%s", "@langchain/core": "%s", "@langchain/langgraph": "%s", "@modelcontextprotocol/sdk": "%s"}}\n' \
	"$ADAPTERS_VERSION" "$CORE_VERSION" "$LANGGRAPH_VERSION" "$MCP_SDK_VERSION")
mkdir -p "$CACHE"
if [[ ! -d $CACHE/node_modules/@langchain/mcp-adapters || $(cat "$CACHE/package.json" 2>/dev/null) != "$manifest" ]]; then
	say "installing @langchain/mcp-adapters@$ADAPTERS_VERSION, @langchain/core@$CORE_VERSION, @langchain/langgraph@$LANGGRAPH_VERSION and @modelcontextprotocol/sdk@$MCP_SDK_VERSION into $CACHE"
	printf '%s\n' "$manifest" >"$CACHE/package.json"
	npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error
fi
# ES modules resolve packages from their own directory: the check runs from the cache.
cp conformance/langchain/check.mjs "$CACHE/"
say "node $(node --version), @langchain/mcp-adapters $ADAPTERS_VERSION"

[[ -x bin/ctool ]] || make build
tmp=$(mktemp -d)
server=
cleanup() {
	[[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
DB=$tmp/ctool.duckdb
bin/ctool ingest --input input --db "$DB" >/dev/null
port=$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
bin/ctool mcp --db "$DB" --http "127.0.0.1:$port" 2>"$tmp/server.log" &
server=$!
for _ in $(seq 100); do
	grep -q '"serving"' "$tmp/server.log" && break
	kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 1; }
	sleep 0.1
done
# The stdio server's log lines (its stderr, which the adapter passes through) are shown on failure only.
node "$CACHE/check.mjs" "$PWD/bin/ctool" "$DB" "http://127.0.0.1:$port/mcp" 2>"$tmp/client.log" ||
	{ cat "$tmp/client.log" >&2; exit 1; }
