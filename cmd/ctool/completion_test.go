package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// ctoolRun runs one command line in the test process and returns its exit status and streams.
func ctoolRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := runWith(e, append([]string{"ctool"}, args...))
	return code, stdout.String(), stderr.String()
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range completionShells {
		code, out, errOut := ctoolRun("completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, "ctool") || !strings.Contains(out, "jsonl") {
			t.Errorf("ctool completion %s: status %d, stderr %q, script:\n%s", shell, code, errOut, out)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, _, errOut := ctoolRun(args...); code != 2 || !strings.HasPrefix(errOut, "ctool: ") {
			t.Errorf("ctool %v: status %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
}

// TestCompletionHidden: a hidden command (issue 13's worker, say) is never offered, nor described.
func TestCompletionHidden(t *testing.T) {
	app := newApp(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: os.Getenv})
	app.Commands = append(app.Commands, &cli.Command{Name: "secretworker", Hidden: true,
		Flags: []cli.Flag{&cli.StringFlag{Name: "secretflag"}}})
	root := completionTree(app)
	man, err := manPage(app)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"bash": bashCompletion(root), "zsh": zshCompletion(root), "fish": fishCompletion(root), "man": man} {
		if strings.Contains(text, "secret") {
			t.Errorf("%s names the hidden command", name)
		}
		if !strings.Contains(text, "validate") {
			t.Errorf("%s lacks the validate command", name)
		}
	}
}

// TestCompletionChoices ties what the scripts offer to what the commands accept: every --format choice
// read from a flag's usage is the list the command checks, and every first-argument choice runs.
func TestCompletionChoices(t *testing.T) {
	root := completionTree(newApp(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: os.Getenv}))
	formats := 0
	for _, c := range root.all() {
		for _, f := range c.flags {
			if f.name != "format" || len(c.subs) > 0 { // "ctool query --format" is its datasets' flag
				continue
			}
			formats++
			if len(f.choices) == 0 {
				t.Errorf("ctool %s --format: no choices read from %q", c.path, f.usage)
				continue
			}
			args := append(strings.Fields(c.path), "--format", "bogus")
			_, _, errOut := ctoolRun(args...)
			want := "--format must be " + orList(f.choices) + ", not \"bogus\""
			if !strings.Contains(errOut, want) {
				t.Errorf("ctool %s: completes --format to %v, but the command says %q", c.path, f.choices, errOut)
			}
			if _, help, _ := ctoolRun(append(strings.Fields(c.path), "--help")...); !strings.Contains(help, "--format "+bar(f.choices)+"]") {
				t.Errorf("ctool %s: the usage line does not list --format %s", c.path, bar(f.choices))
			}
		}
	}
	if formats < 8 {
		t.Errorf("%d commands with --format, want every one (at least 8)", formats)
	}
	for _, c := range root.all() {
		if c.path != "schema" && c.path != "completion" {
			continue
		}
		if len(c.args) < 3 {
			t.Errorf("ctool %s: first argument choices %v", c.path, c.args)
		}
		if _, help, _ := ctoolRun(c.path, "--help"); !sameWords(usageArg(help, c.path), c.args) {
			t.Errorf("ctool %s: the usage line gives %q, completion %v", c.path, usageArg(help, c.path), c.args)
		}
		for _, a := range c.args {
			if code, _, errOut := ctoolRun(c.path, a); code != 0 {
				t.Errorf("ctool %s %s completes but fails: %d %s", c.path, a, code, errOut)
			}
		}
	}
}

// completionLines are command lines as typed up to the cursor, and the words a shell should offer.
var completionLines = []struct {
	line string
	want string // sorted, space-separated; @files for a file name
}{
	{"ctool qu", "query"},
	{"ctool query ", "events products stores"},
	{"ctool query --format json st", "stores"},
	{"ctool --db x.duckdb query p", "products"},
	{"ctool query stores --format ", "csv json jsonl markdown text"},
	{"ctool query stores --format=j", "json jsonl"},
	{"ctool query stores --timeout 5s --format m", "markdown"},
	{"ctool query stores --f", "--format"},
	{"ctool query stores SELECT ", ""},
	{"ctool query stores -- --f", ""},
	{"ctool profile ", ""}, // profile ids: never
	{"ctool profile --format ", "json text"},
	{"ctool mcp --profile-id ", ""},
	{"ctool schema ", "events products profile stores"},
	{"ctool schema stores ", ""},
	{"ctool validate --format g", "github"},
	{"ctool completion ", "bash fish zsh"},
	{"ctool help q", "query"},
	{"ctool query stores --db ", "@files"},
}

// typedWords splits a typed line as the shells hand it to completion: on spaces, the last word maybe
// empty; bash also splits at "=".
func typedWords(line string, splitEquals bool) []string {
	words := strings.Split(line, " ")
	if !splitEquals {
		return words
	}
	var out []string
	for _, w := range words {
		if before, after, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			out = append(out, before, "=", after)
			continue
		}
		out = append(out, w)
	}
	return out
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, out, _ := ctoolRun("completion", shell)
	if code != 0 {
		t.Fatalf("ctool completion %s: status %d", shell, code)
	}
	path := filepath.Join(t.TempDir(), "ctool."+shell)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// offered sorts and joins a shell's answer; a file name completed in dir reads as @files.
func offered(out, dir string) string {
	words := strings.Fields(out)
	slices.Sort(words)
	got := strings.Join(words, " ")
	if dir != "" && got == filepath.Join(dir, "x.duckdb") {
		return "@files"
	}
	return got
}

func checkCompletion(t *testing.T, shell string, run func(dir string, words []string) (string, error), splitEquals bool) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.duckdb"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range completionLines {
		line := tt.line
		if tt.want == "@files" {
			line += dir + "/x"
		}
		out, err := run(dir, typedWords(line, splitEquals))
		if err != nil {
			t.Errorf("%s %q: %v\n%s", shell, line, err, out)
			continue
		}
		if got := offered(out, dir); got != tt.want {
			t.Errorf("%s completes %q to %q, want %q", shell, line, got, tt.want)
		}
	}
}

// TestBashCompletion sources the script in bash and completes each line as bash would (COMP_WORDS,
// COMP_CWORD), printing COMPREPLY.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script := completionScript(t, "bash")
	checkCompletion(t, "bash", func(dir string, words []string) (string, error) {
		args := append([]string{"--norc", "--noprofile", "-c",
			`source "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _ctool && printf '%s\n' "${COMPREPLY[@]}"`,
			"bash", script}, words...)
		out, err := exec.Command("bash", args...).CombinedOutput()
		return string(out), err
	}, true)
}

// TestZshCompletion sources the script in zsh with stand-ins for the completion system's builtins
// (which only run inside a completion widget): each prints the candidates that match the typed prefix.
func TestZshCompletion(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed")
	}
	script := completionScript(t, "zsh")
	stubs := `compdef() { : }
compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=} }
compadd() { while [[ $1 != -- ]]; do shift; done; shift; local w; for w in "$@"; do [[ $w == "$PREFIX"* ]] && print -r -- $w; done; return 0 }
_describe() { local w; for w in "${(@P)4}"; do w=${w%%:*}; [[ $w == "$PREFIX"* ]] && print -r -- $w; done; return 0 }
_files() { print -r -- ${PREFIX}.duckdb }
`
	checkCompletion(t, "zsh", func(dir string, words []string) (string, error) {
		args := append([]string{"-f", "-c", stubs + `source "$1" && shift && words=("$@") && CURRENT=$# && PREFIX=${words[CURRENT]} && _ctool`,
			"zsh", script}, words...)
		out, err := exec.Command("zsh", args...).CombinedOutput()
		return string(out), err
	}, false)
}

// TestFishCompletion sources the script in fish and asks fish's own completer (complete -C).
func TestFishCompletion(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed")
	}
	script := completionScript(t, "fish")
	prefix := regexp.MustCompile(`^--[a-z-]+=`)
	checkCompletion(t, "fish", func(dir string, words []string) (string, error) {
		out, err := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, strings.Join(words, " ")).CombinedOutput()
		var names []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			name, _, _ := strings.Cut(l, "\t")
			names = append(names, prefix.ReplaceAllString(name, ""))
		}
		return strings.Join(names, "\n"), err
	}, false)
}

// usageArg is the first argument's alternatives in a command's usage line: "ctool schema [a|b]" gives a, b.
func usageArg(help, path string) []string {
	_, usage, _ := strings.Cut(help, "USAGE:")
	_, rest, _ := strings.Cut(usage, "ctool "+path+" ")
	first, _, _ := strings.Cut(strings.Fields(rest)[0], " ")
	return strings.Split(strings.Trim(first, "[]<>"), "|")
}

func sameWords(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"json"}, "json"},
		{[]string{"text", "json"}, "text or json"},
		{[]string{"table", "json", "csv"}, "table, json or csv"},
	} {
		if got := orList(tc.words); got != tc.want {
			t.Errorf("orList(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}
