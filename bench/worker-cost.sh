#!/usr/bin/env bash
# What running `ctool query`'s query in a worker process costs per call: this build against a build of
# BASE (a commit that ran the query in the command's own process), and the floor `ctool --version`, in
# ONE hyperfine run on the sample data. Results: bench/results/query-worker.md
#
# Environment: BASE (default 041d3bb, the last commit before query workers), RUNS (default 60).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
need_tools hyperfine jq
BASE=${BASE:-041d3bb}
RUNS=${RUNS:-60}
SQL="SELECT store_name FROM stores WHERE category = 'cafe'"
mkdir -p bench/out/base bench/results
[[ -x bin/ctool ]] || make build
git archive "$BASE" | tar -x -C bench/out/base
(cd bench/out/base && go build -trimpath -ldflags '-s -w' -o ../ctool-base ./cmd/ctool)
rm -f bench/out/worker.duckdb bench/out/worker.profiles-*.duckdb
bin/ctool ingest --input input --db bench/out/worker.duckdb >/dev/null
hyperfine -N --style basic --warmup 5 --min-runs "$RUNS" --export-json bench/out/worker-cost.json \
	-n "in process ($BASE)" "bench/out/ctool-base query stores --db bench/out/worker.duckdb --format json \"$SQL\"" \
	-n 'worker process (this build)' "bin/ctool query stores --db bench/out/worker.duckdb --format json \"$SQL\"" \
	-n 'floor: ctool --version' 'bin/ctool --version'
{
	printf '# ctool query: the cost of running the query in a worker process\n\n'
	printf '%s, %s cores, load average %s, this build %s against %s.\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$(bin/ctool --version)" "$BASE"
	printf '| command | wall mean | wall min | wall median | CPU (user+sys) |\n| --- | ---: | ---: | ---: | ---: |\n'
	jq -r '.results[] | "| \(.command) | \(.mean*1000|floor) ms | \(.min*10000|floor/10) ms | \(.median*10000|floor/10) ms | \((.user+.system)*10000|floor/10) ms |"' bench/out/worker-cost.json
	printf '\nCommand: `bench/worker-cost.sh` (query: `%s` on the sample data).\n' "$SQL"
} >bench/results/query-worker.md
cat bench/results/query-worker.md
