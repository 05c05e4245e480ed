#!/usr/bin/env bash
# Builds published while replicas serve: bench/follow runs two `ctool mcp --http --follow s3://…`
# replicas behind nginx (installed with apt-get if missing), following one bucket of versitygw (an S3
# server built from its Go module into the user's cache, as the tests build it), while BUILDS builds are
# published one every GAP and CLIENTS clients call the tools through nginx. Writes
# bench/results/follow.md; exits non-zero if a call failed or a replica did not serve a new build
# within two intervals.
#
# Environment: CLIENTS (default 8), INTERVAL (the replicas' --follow-interval, default 2s), BUILDS
# (default 3), GAP (default 10s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLIENTS=${CLIENTS:-8}
INTERVAL=${INTERVAL:-2s}
BUILDS=${BUILDS:-3}
GAP=${GAP:-10s}
RESULT=bench/results/follow.md
VERSITYGW_VERSION=v1.8.0 # internal/publish/s3test.Version

# shellcheck source=bench/lib.sh
source bench/lib.sh

command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need_tools nginx
build_helpers follow
gw_dir=${XDG_CACHE_HOME:-$HOME/.cache}/ctool-versitygw/$VERSITYGW_VERSION
[[ -x $gw_dir/versitygw ]] || make --no-print-directory versitygw # the tests' build of it, one definition
[[ -x $gw_dir/versitygw ]] || { echo "bench/follow.sh: versitygw could not be built into $gw_dir" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="bench/out/follow -ctool bin/ctool -versitygw $gw_dir/versitygw -input input -clients $CLIENTS -interval $INTERVAL -builds $BUILDS -gap $GAP"
say "running: $cmd"
status=0
table=$($cmd) || status=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	printf '# Builds published while two replicas serve: sample data\n\n'
	printf '%s, %s cores (%s), load average %s before the run and %s after, %s, versitygw %s.\n\n' \
		"$(date -u +%Y-%m-%d)" "$(nproc)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
		"$load_before" "$load_after" "$(nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1)" "$VERSITYGW_VERSION"
	printf 'Command: `%s` (`make bench-follow`).\n\n' "$cmd"
	printf '%s\n\n' "$table"
	cat <<NOTES
- **The setup**: versitygw (posix backend) on loopback is the bucket; two replicas, \`ctool mcp --http
  ADDR --metrics ADDR --follow s3://ctool-bench/builds --follow-interval $INTERVAL --cache DIR\`, each with
  a cache directory of its own, behind nginx (\`proxy_next_upstream ... http_503 non_idempotent\`); $CLIENTS
  clients call \`search_stores\` through nginx, one call at a time each, for the whole run.
- **The publishes**: $BUILDS builds, each of the sample input with one product renamed, published with
  \`ctool publish\` one every $GAP after the first; "served it after" is the time from \`ctool publish\`
  returning to the replica's \`/healthz\` naming the build (read every 50 ms). A follower reads
  \`latest\` every interval, then downloads (about 7 MB), checks the sha256, opens the build to check its
  schema version, and re-points its cache's \`current.duckdb\`; so the bound is two intervals.
- **failed** counts every call that did not come back as an answer: a transport error, an HTTP status
  other than 200, an error result. **builds named** lists the builds the answers' \`_meta\` named.
NOTES
} >"$RESULT"
if ((status != 0)); then
	printf '\n**A check failed** (exit status %s): see the FAILED lines of the run.\n' "$status" >>"$RESULT"
fi
say "wrote $RESULT"
cat "$RESULT"
exit "$status"
