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

# need_dbhub installs DBHub (pinned) and the Node it needs from npm into $CACHE unless there already,
# and sets NODE and DBHUB (its entry point) for the peer benchmarks.
DBHUB_VERSION=1.4.0
DBHUB_NODE_VERSION=22.23.3 # DBHub reads SQLite through node:sqlite, Node 22 on
need_dbhub() {
	command -v npm >/dev/null || { echo "bench: npm is needed (apt-get install npm)" >&2; exit 1; }
	local manifest
	manifest=$(printf '{"private": true, "dependencies": {"node": "%s", "@bytebase/dbhub": "%s"}}\n' "$DBHUB_NODE_VERSION" "$DBHUB_VERSION")
	mkdir -p "$CACHE"
	if [[ ! -x $CACHE/node_modules/.bin/dbhub || ! -x $CACHE/node_modules/.bin/node || $(cat "$CACHE/package.json" 2>/dev/null) != "$manifest" ]]; then
		say "installing node@$DBHUB_NODE_VERSION and @bytebase/dbhub@$DBHUB_VERSION into $CACHE"
		printf '%s\n' "$manifest" >"$CACHE/package.json"
		# The node package's install script puts the Node binary (itself an npm package) in place.
		npm install --prefix "$CACHE" --no-audit --no-fund --no-save --loglevel=error
	fi
	NODE=$CACHE/node_modules/.bin/node
	DBHUB=$CACHE/node_modules/@bytebase/dbhub/dist/index.js
}

# dbhub_config SQLITE FILE writes DBHub's configuration: the SQLite file read-only through execute_sql,
# with max_rows = 10 as ctool's row cap.
dbhub_config() {
	cat >"$2" <<TOML
[[sources]]
id = "peer"
dsn = "sqlite://$1"

[[tools]]
name = "execute_sql"
source = "peer"
readonly = true
max_rows = 10
TOML
}
