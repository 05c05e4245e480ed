#!/usr/bin/env bash
# What one `ctool query` call costs against a plain DuckDB program: in ONE hyperfine run, the whole
# command, its worker alone (the child command the command starts, given the same query on stdin), the
# floor `ctool --version` (the isolating parent's own start) and bench/out/plainquery (a Go program with
# the same driver that opens the same build read-only and runs the same SELECT, nothing else). ROUNDS
# such runs one after another; the aim is (ctool query - floor) / plain <= 1.2.
# Results: bench/results/query-cli.md (RESULT to write elsewhere).
#
# The worker speaks frames on stdin and stdout and stops when stdin ends, even with a query in hand
# (its parent is gone), so its command keeps stdin open until the answer is read: a pipeline whose
# last stage reads the answer's bytes and then lets the first stage end through a FIFO. Commands run
# through sh (hyperfine subtracts the shell's start) since the worker's needs a pipeline.
#
# Environment: RUNS (at least this many timed runs per command and round, default 40), WARMUP
# (default 5), ROUNDS (default 3), RESULT, BASE (another ctool binary, say an older build: its query
# and worker are timed in the same runs, for a before and after under the same load).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
need_tools hyperfine jq
RUNS=${RUNS:-40}
WARMUP=${WARMUP:-5}
ROUNDS=${ROUNDS:-3}
RESULT=${RESULT:-bench/results/query-cli.md}
SQL="SELECT store_name FROM stores WHERE category = 'cafe'"
DB=bench/out/query-cli.duckdb
FRAME=bench/out/query-cli.frame
FIFO=bench/out/query-cli.fifo

build_helpers plainquery
rm -f "$DB" "$DB.wal" bench/out/query-cli.profiles-*.duckdb
say "ingesting input/ into $DB"
bin/ctool ingest --input input --db "$DB" >/dev/null

# The query frame the command sends its worker (worker/protocol.go): a 4-byte big-endian length, the
# type byte Q and the request as JSON, its SQL base64 as encoding/json writes []byte.
payload=$(jq -cn --arg sql "$(printf '%s' "$SQL" | base64 -w0)" '{seq: 1, dataset: "stores", sql: $sql, deadline: 0}')
n=$((${#payload} + 1))
# shellcheck disable=SC2059
printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))Q%s" "$payload" >"$FRAME"
rm -f "$FIFO"
mkfifo "$FIFO"
WORKER="bin/ctool query-worker --db=$DB --threads=0 --warm=false"
# The bytes of the greeting and the answer, from one run whose stdin stays open long enough.
answer=$({ cat "$FRAME"; sleep 2; } | $WORKER | wc -c)

# Both sides must find the same rows, so the timed commands provably do the same work.
ctool_count=$(bin/ctool query stores --db "$DB" --format json "$SQL" | jq .count)
plain_count=$(bench/out/plainquery "$DB" "$SQL" | jq .count)
if [[ $ctool_count != "$plain_count" || $ctool_count == 0 ]]; then
	echo "bench/query-cli.sh: ctool query returned $ctool_count rows, plainquery $plain_count" >&2
	exit 1
fi
say "both return $ctool_count rows; the worker's greeting and answer are $answer bytes"

QUERY="bin/ctool query stores --db $DB --format json \"$SQL\""
WORKER_ALONE="{ cat $FRAME; head -c1 $FIFO >/dev/null; } | $WORKER | { head -c $answer >/dev/null; echo >$FIFO; }"
FLOOR='bin/ctool --version'
PLAIN="bench/out/plainquery $DB \"$SQL\""
base_commands=()
if [[ -n ${BASE:-} ]]; then
	base_answer=$({ cat "$FRAME"; sleep 2; } | $BASE query-worker --db=$DB --threads=0 --warm=false | wc -c)
	base_commands=(-n 'ctool query, BASE' "$BASE query stores --db $DB --format json \"$SQL\""
		-n 'worker alone, BASE' "{ cat $FRAME; head -c1 $FIFO >/dev/null; } | $BASE query-worker --db=$DB --threads=0 --warm=false | { head -c $base_answer >/dev/null; echo >$FIFO; }")
fi

# figure JSON NAME EXPR: a jq expression over one command's entry in a JSON export (seconds).
figure() { jq -r --arg n "$2" ".results[] | select(.command == \$n) | $3" "$1"; }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
above() { awk -v a="$1" -v f="$2" -v b="$3" 'BEGIN { printf "%.2f", (a - f) / b }'; }

tables=""
summary=""
base_summary=""
for round in $(seq 1 "$ROUNDS"); do
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	say "round $round of $ROUNDS ($WARMUP warmups, at least $RUNS runs each), load average $load_before"
	json=bench/out/query-cli-$round.json
	hyperfine --style basic --warmup "$WARMUP" --min-runs "$RUNS" --export-json "$json" \
		-n 'ctool query' "$QUERY" \
		-n 'worker alone' "$WORKER_ALONE" \
		-n 'floor: ctool --version' "$FLOOR" \
		-n 'plain DuckDB program' "$PLAIN" "${base_commands[@]}" >&2
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	tables+=$(
		printf '\n### Round %d (load average %s before, %s after)\n\n' "$round" "$load_before" "$load_after"
		printf '| command | wall median | wall mean | wall min | CPU (user+sys) mean |\n| --- | ---: | ---: | ---: | ---: |\n'
		jq -r '.results[] | "| \(.command) | \(.median*10000|floor/10) ms | \(.mean*10000|floor/10) ms | \(.min*10000|floor/10) ms | \((.user+.system)*10000|floor/10) ms |"' "$json"
	)$'\n'
	q=$(figure "$json" 'ctool query' .median)
	w=$(figure "$json" 'worker alone' .median)
	f=$(figure "$json" 'floor: ctool --version' .median)
	p=$(figure "$json" 'plain DuckDB program' .median)
	qc=$(figure "$json" 'ctool query' '.user + .system')
	fc=$(figure "$json" 'floor: ctool --version' '.user + .system')
	pc=$(figure "$json" 'plain DuckDB program' '.user + .system')
	summary+="| $round | $load_before | $(ms "$q") ms | $(ms "$f") ms | $(ms "$p") ms | $(ratio "$q" "$p") | **$(above "$q" "$f" "$p")** | $(ratio "$w" "$p") | $(above "$qc" "$fc" "$pc") |"$'\n'
	if [[ -n ${BASE:-} ]]; then
		bq=$(figure "$json" 'ctool query, BASE' .median)
		bc=$(figure "$json" 'ctool query, BASE' '.user + .system')
		base_summary+="| $round | $(ms "$bq") ms | $(ms "$q") ms | **$(above "$bq" "$f" "$p")** | **$(above "$q" "$f" "$p")** | $(above "$bc" "$fc" "$pc") | $(above "$qc" "$fc" "$pc") |"$'\n'
	fi
done

{
	printf '# ctool query against a plain DuckDB program\n\n'
	printf '%s, %s cores, %s, %s runs per command and round.\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" "$(bin/ctool --version)" "$RUNS"
	printf 'Query: `%s` on the sample data. The aim: (ctool query - floor) / plain <= 1.2 by the median.\n\n' "$SQL"
	printf '| round | load average | ctool query | floor | plain | query / plain | (query - floor) / plain | worker alone / plain | (query - floor) / plain, CPU |\n'
	printf '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
	printf '%s' "$summary"
	if [[ -n ${BASE:-} ]]; then
		printf '\nBefore and after in the same runs: BASE is `%s` (%s), floor and plain as above.\n\n' "$BASE" "$($BASE --version)"
		printf '| round | BASE query | this query | (BASE - floor) / plain | (this - floor) / plain | BASE, CPU | this, CPU |\n'
		printf '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
		printf '%s' "$base_summary"
	fi
	printf '%s' "$tables"
	printf '\nCommand: `bench/query-cli.sh` (`make bench-query-cli`). Wall figures are medians of each command in its\n'
	printf 'round; "worker alone" includes the cat and head of its pipeline. CPU is user plus system time of\n'
	printf 'the command and its children.\n'
} >"$RESULT"
cat "$RESULT"
