# Shared by the bench scripts: sourced, never run.

say() { printf '==> %s\n' "$*" >&2; }

# need_tools installs the Debian packages of the named commands that are missing: a fresh machine has
# neither hyperfine nor jq.
need_tools() {
	local tool sudo=()
	[[ $(id -u) == 0 ]] || sudo=(sudo)
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			say "installing $tool"
			"${sudo[@]}" apt-get update && "${sudo[@]}" apt-get install -y "$tool"
		fi
	done
}

# build_helpers builds bin/ctool if it is missing and the named programs of bench/ into bench/out,
# stripped like bin/ctool so that start-up costs compare.
build_helpers() {
	local prog
	[[ -x bin/ctool ]] || make build
	say "building the helper programs into bench/out (stripped like bin/ctool, so start-up costs compare)"
	mkdir -p bench/out bench/results
	for prog in "$@"; do
		go build -trimpath -ldflags '-s -w' -o "bench/out/$prog" "./bench/$prog"
	done
}

# generate_input DIR ROWS: the sample files plus a ROWS-row products file in DIR, reused unless REGEN=1.
generate_input() {
	if [[ ${REGEN:-} == 1 || ! -f $1/filtered_product_data.csv ]]; then
		say "generating $1 ($2 products rows)"
		bench/out/gen -rows "$2" -src input -out "$1"
	else
		say "reusing $1 (REGEN=1 to rewrite it)"
	fi
}

# sample_build ingests input/ into $tmp/ctool.duckdb, $tmp a new temporary directory removed on exit.
sample_build() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	say "ingesting input/ into $tmp/ctool.duckdb"
	bin/ctool ingest --input input --db "$tmp/ctool.duckdb" >/dev/null
}
