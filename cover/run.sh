#!/usr/bin/env bash
# Coverage of every product package, by all the tests together (not part of `make test`: it runs the
# whole suite instrumented). Each package's own tests and the end-to-end scripts count alike: the test
# binaries are built with -cover over every package, and the processes they start (the scripts' ctool,
# query workers) inherit GOCOVERDIR, so their counters land in the same directory; `go tool covdata`
# merges them. Prints each package's figure and the total, and exits 1 if a package is under $MIN
# percent. Test helpers (*test packages) and the bench/ programs are not measured.
# Environment: MIN (default 80), OUT (default bench/out/cover).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MIN=${MIN:-80}
OUT=${OUT:-bench/out/cover}
rm -rf "$OUT"
mkdir -p "$OUT/data"
DATA=$(cd "$OUT/data" && pwd)

pkgs=$(go list ./... | grep -v -e '/bench/' -e 'test$')
coverpkg=$(echo "$pkgs" | paste -sd, -)

status=0
GOCOVERDIR=$DATA go test -count=1 -cover -coverpkg="$coverpkg" ./... -args -test.gocoverdir="$DATA" \
	> "$OUT/test.log" 2>&1 || status=$?
if [ "$status" != 0 ]; then
	grep -E '^(--- FAIL|FAIL|panic)' "$OUT/test.log" || tail -20 "$OUT/test.log"
	echo "cover: the tests failed (full log: $OUT/test.log)"
	exit 1
fi

go tool covdata percent -i="$DATA" | sort > "$OUT/percent.txt"
go tool covdata textfmt -i="$DATA" -o "$OUT/cover.out"
total=$(go tool cover -func="$OUT/cover.out" | awk '/^total:/ {print $3}')

low=0
while read -r pkg _ pct _; do
	pct=${pct%\%}
	mark=
	if awk -v p="$pct" -v m="$MIN" 'BEGIN {exit !(p < m)}'; then
		mark="  (under $MIN%)"
		low=1
	fi
	printf '%-45s %6s%%%s\n' "$pkg" "$pct" "$mark"
done < "$OUT/percent.txt"
printf '%-45s %6s\n' total "$total"
echo "cover: profile in $OUT/cover.out (go tool cover -html=$OUT/cover.out)"
exit $low
