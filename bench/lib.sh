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
