#!/usr/bin/env bash
# Load and rollout benchmark of `ctool mcp --http` on loopback: bench/load drives one server with 8 and
# 32 clients for 30 s each (the three searches in turn, 1 call in 50 a query past the server's
# timeout) while a new ingest replaces the build and a worker is killed from outside; then two replicas
# behind nginx (installed with apt-get if missing) while a new build is published and one replica is
# drained and restarted. Writes bench/results/load.md; exits non-zero if a check fails.
#
# Environment: CLIENTS (default 8,32), DURATION (each run, default 30s), TIMEOUT (the servers'
# --timeout, default 3s: the slow query runs past it, every other call must finish within it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLIENTS=${CLIENTS:-8,32}
DURATION=${DURATION:-30s}
TIMEOUT=${TIMEOUT:-3s}
RESULT=bench/results/load.md

# shellcheck source=bench/lib.sh
source bench/lib.sh

command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need_tools nginx
build_helpers load
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="bench/out/load -ctool bin/ctool -input input -clients $CLIENTS -duration $DURATION -timeout $TIMEOUT -nginx"
say "running: $cmd"
status=0
table=$($cmd) || status=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	printf '# ctool mcp --http under load, with a rollout: sample data\n\n'
	printf '%s, %s cores (%s), load average %s before the run and %s after, %s.\n\n' \
		"$(date -u +%Y-%m-%d)" "$(nproc)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
		"$load_before" "$load_after" "$(nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1)"
	printf 'Command: `%s` (`make bench-load`). Each run lasts %s; the servers run with `--timeout %s`.\n\n' "$cmd" "$DURATION" "$TIMEOUT"
	printf '%s\n\n' "$table"
	cat <<'NOTES'
- **one server**: a new `ctool ingest` replaces the build a third of the way in, and one query worker is
  SIGKILLed from outside two thirds of the way in. calls/s counts every answered call; p50 and p99 are
  over the answered calls other than the intended timeouts. A killed worker that was idle costs no call;
  one that held a query answers that call `crashed` (allowed, at most one).
- **2 replicas + nginx**: both replicas read one database path; the ingest a quarter of the way in
  publishes the new build to both. Half way, replica a gets SIGTERM: it answers what it holds, says 503
  with Retry-After to new calls (nginx passes them to b, `proxy_next_upstream ... http_503
  non_idempotent`) and exits 0; it is started again on the same port while the load runs.
- **failed** counts everything else: a transport error, an HTTP status other than 200, an error kind
  other than the intended timeout. **builds** lists the build every answered call's `_meta` named,
  with how many answers each; every call started after the ingest returned names the new build.
NOTES
} >"$RESULT"
if ((status != 0)); then
	printf '\n**A check failed** (exit status %s): see the FAILED lines of the run.\n' "$status" >>"$RESULT"
fi
say "wrote $RESULT"
cat "$RESULT"
exit "$status"
