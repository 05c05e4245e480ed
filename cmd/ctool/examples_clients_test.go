package main

// The client snippets of docs/clients.md are copied as they are, so each must parse in its own language
// (JSON here; Python with python3's ast and JavaScript with node --check, when they are installed; shell
// with bash -n), and every ctool command line they hold must be one ctool accepts: run against a build
// that does not exist, it gets as far as opening the database (exit 3), past every flag.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const clientsDoc = "../../docs/clients.md"

// codeBlock is one fenced block of a Markdown page.
type codeBlock struct {
	lang, text string
	line       int
}

func codeBlocks(t *testing.T, path string) []codeBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []codeBlock
	var cur *codeBlock
	var body strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(fence, "```"):
			cur = &codeBlock{lang: strings.TrimPrefix(fence, "```"), line: n}
			body.Reset()
		case cur != nil && fence == "```":
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	return blocks
}

func TestClientSnippets(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	for _, b := range codeBlocks(t, clientsDoc) {
		where := clientsDoc[len("../../"):] + ":" + strconv.Itoa(b.line)
		counts[b.lang]++
		switch b.lang {
		case "json":
			var doc any
			if err := json.Unmarshal([]byte(b.text), &doc); err != nil {
				t.Errorf("%s: not JSON: %v", where, err)
				continue
			}
			checkServers(t, where, doc)
		case "sh":
			if out, err := exec.Command("bash", "-n", "-c", b.text).CombinedOutput(); err != nil {
				t.Errorf("%s: bash -n: %v\n%s", where, err, out)
			}
			for _, line := range strings.Split(b.text, "\n") {
				line, _, _ = strings.Cut(line, " #")
				line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "</dev/null"))
				if _, cmd, ok := strings.Cut(line, " -- "); ok && strings.HasPrefix(line, "claude mcp add") {
					line = cmd
				}
				if strings.HasPrefix(line, "ctool mcp ") {
					checkServeArgs(t, where, strings.Fields(line)[1:], nil)
				}
				if strings.HasPrefix(line, "claude mcp add --transport http") && !regexp.MustCompile(`https?://\S+/mcp\b`).MatchString(line) {
					t.Errorf("%s: %s: the URL does not end in /mcp", where, line)
				}
			}
		case "python":
			if _, err := exec.LookPath("python3"); err != nil {
				t.Logf("%s: python3 is not installed: not parsed", where)
			} else {
				cmd := exec.Command("python3", "-c", "import ast, sys; ast.parse(sys.stdin.read())")
				cmd.Stdin = strings.NewReader(b.text)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: not Python: %v\n%s", where, err, out)
				}
			}
			if strings.Contains(b.text, "MultiServerMCPClient") && !strings.Contains(b.text, `"transport": "stdio"`) {
				t.Errorf("%s: langchain-mcp-adapters needs a transport key", where)
			}
			checkArgLists(t, where, b.text)
		case "js":
			if _, err := exec.LookPath("node"); err != nil {
				t.Logf("%s: node is not installed: not parsed", where)
			} else {
				f := filepath.Join(t.TempDir(), "snippet.mjs")
				if err := os.WriteFile(f, []byte(b.text), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command("node", "--check", f).CombinedOutput(); err != nil {
					t.Errorf("%s: node --check: %v\n%s", where, err, out)
				}
			}
			checkArgLists(t, where, b.text)
		}
	}
	// Claude Code, Claude Desktop, Cursor and VS Code in JSON; LangChain and the Agents SDK in code.
	if counts["json"] < 7 || counts["python"] < 2 || counts["js"] < 1 || counts["sh"] < 3 {
		t.Errorf("snippets by language %v: some client lost its configuration", counts)
	}
}

// checkServers finds the server entries of a client configuration: a command must be ctool's mcp, a URL
// the server's /mcp endpoint.
func checkServers(t *testing.T, where string, doc any) {
	t.Helper()
	found := 0
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if cmd, ok := v["command"].(string); ok {
				found++
				if filepath.Base(cmd) != "ctool" {
					t.Errorf("%s: command %q is not ctool", where, cmd)
				}
				var args []string
				for _, a := range v["args"].([]any) {
					args = append(args, a.(string))
				}
				var env []string
				if m, ok := v["env"].(map[string]any); ok {
					for k, val := range m {
						env = append(env, k+"="+val.(string))
					}
				}
				checkServeArgs(t, where, args, env)
				return
			}
			if url, ok := v["url"].(string); ok {
				found++
				if !strings.HasSuffix(url, "/mcp") {
					t.Errorf("%s: url %q is not the server's /mcp", where, url)
				}
				return
			}
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if found == 0 {
		t.Errorf("%s: no server in the configuration", where)
	}
}

// argList matches a list of strings given as a server's args in Python or JavaScript.
var argList = regexp.MustCompile(`(?m)^\s*"?args"?:\s*(\[[^\]]*\])`)

func checkArgLists(t *testing.T, where, code string) {
	t.Helper()
	m := argList.FindAllStringSubmatch(code, -1)
	if len(m) == 0 {
		t.Errorf("%s: no args for ctool", where)
	}
	for _, s := range m {
		var args []string
		if err := json.Unmarshal([]byte(s[1]), &args); err != nil {
			t.Errorf("%s: args %s: %v", where, s[1], err)
			continue
		}
		checkServeArgs(t, where, args, nil)
	}
}

// checkServeArgs runs `ctool ARGS` (ARGS starting with mcp) against a build that does not exist: every
// flag must be accepted, so the command stops only at the missing database, exit 3.
func checkServeArgs(t *testing.T, where string, args, env []string) {
	t.Helper()
	if len(args) == 0 || args[0] != "mcp" {
		t.Errorf("%s: ctool %q is not ctool mcp", where, args)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ctool", args...)
	cmd.Env = append(append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE="), env...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: ctool %q: %v", where, args, err)
	}
	if code != 3 || !strings.Contains(string(out), "no usable ctool database") {
		t.Errorf("%s: ctool %s: exit %d, want 3 (no database, every flag accepted):\n%s", where, strings.Join(args, " "), code, out)
	}
}
