#!/usr/bin/env bash
# Coverage of every product package, by all the tests together (not part of `make test`: it runs the
# whole suite instrumented). Each package's own tests and the end-to-end scripts count alike: every test
# binary is built with -cover over every package and run with GOCOVERDIR set, so the processes it starts
# (the scripts' ctool, query workers) write their counters to the same directory, and `go tool covdata`
# merges them. (Run by `go test`, the children would write to go test's own directory instead.) Prints
# each package's figure and the total, and exits 1 if a package is under $MIN percent or a test failed.
# Test helpers (*test packages) and the bench/ programs are not measured.
# Environment: MIN (default 80), OUT (default bench/out/cover).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MIN=${MIN:-80}
OUT=${OUT:-bench/out/cover}
rm -rf "$OUT"
mkdir -p "$OUT/data" "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
DATA=$OUT/data

coverpkg=$(go list ./... | grep -v -e '/bench/' -e 'test$' | paste -sd, -)

failed=0
: > "$OUT/test.log"
while read -r pkg dir; do
	bin=$OUT/bin/$(echo "$pkg" | tr / _).test
	# A test binary measures the packages it links; the others it leaves to the binaries that do.
	go test -c -cover -covermode=set -coverpkg="$coverpkg" -o "$bin" "$pkg" 2>&1 |
		{ grep -v '^warning: no packages being tested depend on' || true; } >&2
	echo "== $pkg" >> "$OUT/test.log"
	if ! (cd "$dir" && GOCOVERDIR=$DATA "$bin" -test.count=1 -test.timeout=30m -test.gocoverdir="$DATA") >> "$OUT/test.log" 2>&1; then
		echo "cover: $pkg: tests failed"
		failed=1
	fi
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./...)
if [ "$failed" = 1 ]; then
	# The figures are still worth printing: a timing test that fails on a loaded machine costs little.
	grep -E '^(== |\s*--- FAIL|panic|\s+\S+_test.go:[0-9]+:)' "$OUT/test.log" | grep -B1 -v '^== ' | grep -v '^--$' || true
	echo "cover: tests failed (full log: $OUT/test.log)"
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
echo "cover: $(ls "$DATA" | grep -c covcounters) processes measured; profile in $OUT/cover.out (go tool cover -html)"
[ "$failed" = 0 ] && exit $low
exit 1
