#!/usr/bin/env bash
# Memory benchmark: `ctool mcp --http` under 1, 8 and 32 clients (bench/memory: each client its own
# session, bench/peer's three queries in turn, a distinct SQL text per call): calls/s, p50 and p99, the
# peak of the summed resident sets of the server and its workers during each load, and each process's
# resident set (anonymous and file-backed) and proportional set SETTLE_SECONDS after the loads. With
# BASE set to another ctool binary, both run in the same rounds, their order alternating. Not part of
# `make test`. Writes bench/results/memory-run.md.
#
# Environment: ROUNDS (default 3), HTTP_SECONDS (per client count, default 5), SETTLE_SECONDS (default
# 20: ctool mcp retires the workers beyond the warm ones after 15 s idle), CLIENTS (default 1,8,32),
# BASE (a ctool binary to compare, e.g. one built from the previous commit).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${ROUNDS:-3}
HTTP_SECONDS=${HTTP_SECONDS:-5}
SETTLE_SECONDS=${SETTLE_SECONDS:-20}
CLIENTS=${CLIENTS:-1,8,32}
BASE=${BASE:-}
RESULT=bench/results/memory-run.md

# shellcheck source=bench/lib.sh
source bench/lib.sh

build_helpers memory
sample_build
base=()
if [[ -n $BASE ]]; then
	base=(-base "$BASE mcp --db $tmp/ctool.duckdb")
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average $load_before; running $ROUNDS rounds"
table=$(bench/out/memory run -rounds "$ROUNDS" -clients "$CLIENTS" -http "${HTTP_SECONDS}s" -settle "${SETTLE_SECONDS}s" \
	-ctool "bin/ctool mcp --db $tmp/ctool.duckdb" "${base[@]}")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	printf '# ctool mcp: memory and latency under load, sample data\n\n'
	printf '%s, %s cores (%s), load average %s before the run and %s after, %s%s.\n\n' \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
		"$load_before" "$load_after" "$(bin/ctool --version)" "${BASE:+; base: $("$BASE" --version)}"
	printf 'Medians of %s rounds, each with a fresh server; the last column lists each round.\n\n%s\n\n' "$ROUNDS" "$table"
	cat <<'TEXT'
Each client count runs for HTTP_SECONDS after a fifth of it untimed; each client has its own session and
calls search_stores, search_events and search_products in turn, one call at a time, every SQL text
distinct (bench/peer's queries). Peak: the summed resident sets of the server and its child processes,
sampled every 50 ms. Resident sets count the binary's pages (shared by the server and its workers, the
same file) once per process; the proportional sets divide them among the sharers. Anonymous is the
process's own memory (Go's heap, DuckDB's allocations); file-backed is mostly the binary's code.

Command (from the repository root; `make bench-memory` builds first):

```sh
bench/memory.sh    # ROUNDS=3 HTTP_SECONDS=5 SETTLE_SECONDS=20 CLIENTS=1,8,32 [BASE=path/to/other/ctool]
```
TEXT
} >"$RESULT"
say "results in $RESULT"
cat "$RESULT"
