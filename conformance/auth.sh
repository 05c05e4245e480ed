#!/usr/bin/env bash
# End-to-end check of `ctool mcp --auth-issuer` against a real authorization server (not part of
# `make test`: it installs npm packages). Installs Node 22, oidc-provider and the MCP TypeScript SDK,
# pinned, from the npm registry into a cache directory, ingests input/ into a temporary database, starts
#
#   - oidc-provider on loopback (conformance/auth/issuer.mjs): resource indicators on, JWT access tokens
#     for ctool's resource, two client-credentials clients;
#   - ctool mcp --http --auth-issuer ISSUER --resource URL --profile-claim profile_id;
#
# then runs conformance/auth/client.mjs: the SDK's client gets its token through the 401 and the
# protected resource metadata, lists and calls the tools, and the 401/403 answers are checked exactly.
# Exits non-zero if any check fails. Logs land in $OUT (default bench/out/conformance-auth).
# Environment: CONFORMANCE_AUTH_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/ctool-conformance-auth), OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

NODE_VERSION=22.23.3
OIDC_PROVIDER_VERSION=9.13.3
MCP_SDK_VERSION=1.32.2
CACHE=${CONFORMANCE_AUTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctool-conformance-auth}
OUT=${OUT:-bench/out/conformance-auth}

say() { printf '==> %s\n' "$*" >&2; }

# --- the tools, pinned, in the cache ------------------------------------------------------------
command -v npm >/dev/null || { echo "conformance/auth.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
manifest=$(printf '{"private": true, "dependencies": {"node": "%s", "oidc-provider": "%s", "@modelcontextprotocol/sdk": "%s"}}\n' \
	"$NODE_VERSION" "$OIDC_PROVIDER_VERSION" "$MCP_SDK_VERSION")
mkdir -p "$CACHE"
if [[ ! -x $CACHE/node_modules/.bin/node || ! -d $CACHE/node_modules/oidc-provider || $(cat "$CACHE/package.json" 2>/dev/null) != "$manifest" ]]; then
	say "installing node@$NODE_VERSION, oidc-provider@$OIDC_PROVIDER_VERSION and @modelcontextprotocol/sdk@$MCP_SDK_VERSION into $CACHE"
	printf '%s\n' "$manifest" >"$CACHE/package.json"
	npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error
fi
export PATH=$CACHE/node_modules/.bin:$PATH
# ES modules resolve packages from their own directory: the scripts run from the cache.
cp conformance/auth/*.mjs "$CACHE/"
say "node $(node --version), oidc-provider $OIDC_PROVIDER_VERSION, @modelcontextprotocol/sdk $MCP_SDK_VERSION"

# --- a database, the issuer and the server ------------------------------------------------------
[[ -x bin/ctool ]] || make build
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
DB=$tmp/ctool.duckdb
say "ingesting input/ into $DB"
bin/ctool ingest --input input --db "$DB" >/dev/null
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"; }
# wait_for FILE PATTERN PID: until FILE has a line matching PATTERN, or PID exits.
wait_for() {
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { cat "$1" "$1.err" >&2 2>/dev/null; return 1; }
		sleep 0.1
	done
	return 1
}

mcp_port=$(free_port)
resource=http://127.0.0.1:$mcp_port/mcp
: >"$OUT/issuer.log"
node "$CACHE/issuer.mjs" "$(free_port)" "$resource" >"$OUT/issuer.log" 2>"$OUT/issuer.log.err" &
pids+=($!)
wait_for "$OUT/issuer.log" '^http' "${pids[-1]}" || { echo "the issuer did not start" >&2; exit 1; }
issuer=$(head -1 "$OUT/issuer.log")
say "oidc-provider serves $issuer"

: >"$OUT/server.log"
bin/ctool mcp --db "$DB" --http "127.0.0.1:$mcp_port" --auth-issuer "$issuer" --resource "$resource" \
	--profile-claim profile_id 2>"$OUT/server.log" &
pids+=($!)
wait_for "$OUT/server.log" '"serving"' "${pids[-1]}" || { echo "ctool mcp --auth-issuer did not start" >&2; exit 1; }
say "ctool mcp serves $resource"

# --- the client ---------------------------------------------------------------------------------
say "the MCP TypeScript SDK's client, client credentials"
if ! node "$CACHE/client.mjs" "$resource" "$issuer" 2>&1 | tee "$OUT/client.log"; then
	echo "conformance-auth: a check failed; logs in $OUT" >&2
	exit 1
fi
# The log names refusals by reason and subjects by a keyed hash only.
if grep -q 'concierge\|searcher\|user_criollo_heavy' "$OUT/server.log"; then
	echo "conformance-auth: the server log names a client or a profile: $OUT/server.log" >&2
	exit 1
fi
for reason in missing audience scope; do
	grep -q "\"refusal\":\"$reason\"" "$OUT/server.log" || { echo "conformance-auth: no $reason refusal in the log" >&2; exit 1; }
done
echo "conformance-auth: every check passed; logs in $OUT" >&2
