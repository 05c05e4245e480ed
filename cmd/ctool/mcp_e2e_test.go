package main

// End-to-end tests of `ctool mcp`. The real command runs as a child process (testscript.Main in TestMain
// puts this test binary on PATH as "ctool") and the tests speak the protocol to it as a client would:
// raw JSON-RPC over stdio and HTTP, and the official SDK's client. What a call returns is compared
// with what `ctool query --format json` and `ctool profile --format json` print for the same input on
// the same database, also run as child processes: this test process opens no database but the ones
// ingesttest builds. No assertion depends on how fast anything is.
//
//	go test ./cmd/ctool -run TestMCP

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/mcpserver"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpWait bounds how long a test waits for one answer before it gives up with the server's log: not a
// speed requirement, only a guard against a hung test.
const mcpWait = 2 * time.Minute

// slowSQL runs until it is stopped: DuckDB counts through a trillion rows.
const slowSQL = "SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3"

// ---------------------------------------------------------------------------------------------
// The protocol, as a client writes and reads it

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// toolResult is a tools/call result as it arrives; StructuredContent keeps its bytes, and so its key order.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return fmt.Sprintf("<content %+v>", r.Content)
	}
	return r.Content[0].Text
}

var initializeParams = map[string]any{
	"protocolVersion": "2025-11-25",
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "ctool-e2e", "version": "1"},
}

// mcpCaller is a connection to a server, over stdio or HTTP.
type mcpCaller interface {
	call(t *testing.T, method string, params any) rpcMessage
}

func callTool(t *testing.T, c mcpCaller, name string, args any) toolResult {
	t.Helper()
	msg := c.call(t, "tools/call", map[string]any{"name": name, "arguments": args})
	return decodeToolResult(t, msg)
}

func decodeToolResult(t *testing.T, msg rpcMessage) toolResult {
	t.Helper()
	if msg.Error != nil {
		t.Fatalf("tools/call: protocol error %d %s", msg.Error.Code, msg.Error.Message)
	}
	var r toolResult
	if err := json.Unmarshal(msg.Result, &r); err != nil {
		t.Fatalf("tools/call result %s: %v", msg.Result, err)
	}
	return r
}

// ---------------------------------------------------------------------------------------------
// `ctool mcp` as a child process on stdio

type mcpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer

	writeMu sync.Mutex
	mu      sync.Mutex
	next    int64
	pending map[int64]chan rpcMessage
	exited  chan struct{}
}

// lines parses the JSON lines written so far.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// mcpCommand is `ctool mcp args...` with the given environment variables and none of the test's
// CTOOL_DB or NARRATIVE_DATA_FILE.
func mcpCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("ctool"); err != nil {
		t.Fatalf("ctool is not on PATH (TestMain's testscript.Main puts it there): %v", err)
	}
	cmd := exec.Command("ctool", append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func startMCP(t *testing.T, env []string, args ...string) *mcpProcess {
	t.Helper()
	return startMCPCommand(t, mcpCommand(t, env, args...))
}

// startMCPCommand starts cmd, a `ctool mcp` on stdio (mcpCommand).
func startMCPCommand(t *testing.T, cmd *exec.Cmd) *mcpProcess {
	t.Helper()
	p := &mcpProcess{cmd: cmd, stderr: &syncBuffer{}, pending: map[int64]chan rpcMessage{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(stdout)
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(mcpWait):
			p.cmd.Process.Kill()
		}
		p.cmd.Wait()
	})
	return p
}

// read hands every response to the call waiting for it. Anything else the server sends is ignored.
func (p *mcpProcess) read(stdout io.Reader) {
	defer close(p.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var msg rpcMessage
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID == nil || msg.Method != "" {
			continue
		}
		p.mu.Lock()
		ch := p.pending[*msg.ID]
		delete(p.pending, *msg.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	}
}

func (p *mcpProcess) send(t *testing.T, msg rpcMessage) {
	t.Helper()
	msg.JSONRPC = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to ctool mcp: %v\nstderr:\n%s", err, p.stderr)
	}
}

// start sends a request and returns its id and where its response will arrive.
func (p *mcpProcess) start(t *testing.T, method string, params any) (int64, chan rpcMessage) {
	t.Helper()
	ch := make(chan rpcMessage, 1)
	p.mu.Lock()
	p.next++
	id := p.next
	p.pending[id] = ch
	p.mu.Unlock()
	p.send(t, rpcMessage{ID: &id, Method: method, Params: params})
	return id, ch
}

func (p *mcpProcess) wait(t *testing.T, ch chan rpcMessage) rpcMessage {
	t.Helper()
	select {
	case msg := <-ch:
		return msg
	case <-p.exited:
		t.Fatalf("ctool mcp stopped before answering\nstderr:\n%s", p.stderr)
	case <-time.After(mcpWait):
		t.Fatalf("no answer from ctool mcp within %s\nstderr:\n%s", mcpWait, p.stderr)
	}
	return rpcMessage{}
}

func (p *mcpProcess) call(t *testing.T, method string, params any) rpcMessage {
	t.Helper()
	_, ch := p.start(t, method, params)
	return p.wait(t, ch)
}

func (p *mcpProcess) notify(t *testing.T, method string, params any) {
	t.Helper()
	p.send(t, rpcMessage{Method: method, Params: params})
}

// initialize does the handshake and returns the server's answer.
func (p *mcpProcess) initialize(t *testing.T) rpcMessage {
	t.Helper()
	msg := p.call(t, "initialize", initializeParams)
	p.notify(t, "notifications/initialized", nil)
	return msg
}

// stop closes stdin, as a client ends a stdio session, and waits for the server to exit.
func (p *mcpProcess) stop(t *testing.T) {
	t.Helper()
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(mcpWait):
		t.Fatalf("ctool mcp did not exit after stdin closed\nstderr:\n%s", p.stderr)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("ctool mcp: %v\nstderr:\n%s", err, p.stderr)
	}
}

// waitForLog waits until the server's stderr holds n call lines that match.
func (p *mcpProcess) waitForLog(t *testing.T, n int, match func(map[string]any) bool) []map[string]any {
	t.Helper()
	var found []map[string]any
	p.stderr.waitFor(t, fmt.Sprintf("%d matching call lines", n), func(string) bool {
		found = nil
		for _, l := range p.stderr.lines(t) {
			if l["tool"] != nil && match(l) {
				found = append(found, l)
			}
		}
		return len(found) >= n
	})
	return found
}

// startFields waits for the first line a server writes on stderr, its start line, and returns its
// fields: "serving", "build" and, with --metrics, "metrics".
func startFields(t *testing.T, stderr *syncBuffer) map[string]any {
	t.Helper()
	written := stderr.waitFor(t, "the start line", func(s string) bool { return strings.Contains(s, "\n") })
	line, _, _ := strings.Cut(written, "\n")
	var start map[string]any
	if err := json.Unmarshal([]byte(line), &start); err != nil {
		t.Fatalf("start line %q: %v", line, err)
	}
	return start
}

// waitForGauge waits until the gauge name on the server's /metrics (metrics is the start line's
// "metrics") reads at least want: ctool_workers_busy says the queries sent have reached their
// workers. The server tells no one when a gauge changes, so this polls; the bound is a hang guard.
func waitForGauge(t *testing.T, metrics, name string, want float64) {
	t.Helper()
	read := func() (float64, string) {
		resp, err := http.Get(metrics + "/metrics")
		if err != nil {
			t.Fatalf("GET /metrics: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				return f, string(b)
			}
		}
		t.Fatalf("no %s on /metrics:\n%s", name, b)
		return 0, ""
	}
	for deadline := time.Now().Add(mcpWait); ; time.Sleep(20 * time.Millisecond) {
		got, all := read()
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v within %s:\n%s", name, got, want, mcpWait, all)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// `ctool mcp --http` as a child process

type mcpHTTP struct {
	url    string
	stderr *syncBuffer
}

// startLine is a server's stderr, kept whole in buf, that hands over its first line once written:
// the start line, which says where the server listens once it does.
type startLine struct {
	buf  *syncBuffer
	done atomic.Bool
	line chan string
}

func newStartLine(buf *syncBuffer) *startLine {
	return &startLine{buf: buf, line: make(chan string, 1)}
}

func (s *startLine) Write(p []byte) (int, error) {
	n, err := s.buf.Write(p)
	if !s.done.Load() {
		if line, _, ok := strings.Cut(s.buf.String(), "\n"); ok && s.done.CompareAndSwap(false, true) {
			s.line <- line
		}
	}
	return n, err
}

// wait returns the start line's fields, or fails if the server exits first.
func (s *startLine) wait(t *testing.T, exited <-chan struct{}) map[string]any {
	t.Helper()
	select {
	case line := <-s.line:
		var start map[string]any
		if err := json.Unmarshal([]byte(line), &start); err != nil {
			t.Fatalf("start line %q: %v", line, err)
		}
		return start
	case <-exited:
		t.Fatalf("ctool mcp exited before its start line\nstderr:\n%s", s.buf)
	case <-time.After(mcpWait):
		t.Fatalf("ctool mcp did not say where it listens within %s\nstderr:\n%s", mcpWait, s.buf)
	}
	return nil
}

// startMCPHTTP starts `ctool mcp --http 127.0.0.1:0 args...` and reads where it listens from its first
// log line.
func startMCPHTTP(t *testing.T, args ...string) *mcpHTTP {
	t.Helper()
	cmd := mcpCommand(t, nil, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	s := &mcpHTTP{stderr: &syncBuffer{}}
	start := newStartLine(s.stderr)
	cmd.Stderr = start
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// SIGINT stops the server cleanly: exit status 0.
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
			if waitErr != nil {
				t.Errorf("ctool mcp --http after SIGINT: %v\nstderr:\n%s", waitErr, s.stderr)
			}
		case <-time.After(mcpWait):
			cmd.Process.Kill()
			t.Errorf("ctool mcp --http did not stop on SIGINT")
		}
	})
	first := start.wait(t, exited)
	s.url, _ = first["serving"].(string)
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") || !strings.HasSuffix(s.url, mcpserver.Path) {
		t.Fatalf("first log line %v", first)
	}
	return s
}

// post sends one JSON-RPC message as a client of streamable HTTP does; header adds or replaces headers
// ("Host" sets the Host).
func (s *mcpHTTP) post(t *testing.T, body any, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", s.url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v\nstderr:\n%s", s.url, err, s.stderr)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

func (s *mcpHTTP) call(t *testing.T, method string, params any) rpcMessage {
	t.Helper()
	id := int64(1)
	resp, body := s.post(t, rpcMessage{JSONRPC: "2.0", ID: &id, Method: method, Params: params}, nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: HTTP %d %s: %s", method, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var msg rpcMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("%s: %s: %v", method, body, err)
	}
	return msg
}

// ---------------------------------------------------------------------------------------------
// What the commands print for the same input

// cliOutput runs `ctool args...` as a child process with the given environment variables (and none
// of the test's CTOOL_DB or NARRATIVE_DATA_FILE) and returns its stdout.
func cliOutput(t *testing.T, environ map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command("ctool", args...)
	cmd.Env = append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE=")
	for k, v := range environ {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stdin = &stdout, strings.NewReader("")
	if err := cmd.Run(); err != nil {
		if _, exited := err.(*exec.ExitError); !exited {
			t.Fatalf("ctool %q: %v", args, err)
		}
	}
	return stdout.String()
}

// canonical re-encodes a JSON document compactly, keeping its keys in their order and without HTML
// escapes: two documents are equal, key order included, when their canonical forms are.
func canonical(t *testing.T, doc []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var b strings.Builder
	var value func() error
	str := func(s string) {
		q, _ := textout.Marshal(s)
		b.Write(q)
	}
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			open, close := byte(v), byte('}')
			if v == '[' {
				close = ']'
			}
			b.WriteByte(open)
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if open == '{' {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					str(k.(string))
					b.WriteByte(':')
				}
				if err := value(); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.WriteByte(close)
		case string:
			str(v)
		case json.Number:
			b.WriteString(v.String())
		case bool:
			fmt.Fprint(&b, v)
		case nil:
			b.WriteString("null")
		}
		return nil
	}
	if err := value(); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return b.String()
}

// sameAsCLI checks a tool's answer against the command's output: a success carries the command's JSON
// as its structured content (same keys in the same order, same values) and, byte for byte, as its text;
// a failure is isError with the command's one-line JSON error as its text.
func sameAsCLI(t *testing.T, what string, got toolResult, cli string) {
	t.Helper()
	var probe map[string]any
	if err := json.Unmarshal([]byte(cli), &probe); err != nil {
		t.Fatalf("%s: the command printed %q", what, cli)
	}
	if _, failed := probe["error"]; failed {
		if !got.IsError || got.text() != strings.TrimSuffix(cli, "\n") || got.StructuredContent != nil {
			t.Errorf("%s: got isError=%v %s (structured %s)\nwant isError=true %s", what, got.IsError, got.text(), got.StructuredContent, cli)
		}
		return
	}
	if got.IsError {
		t.Errorf("%s: isError: %s\nthe command printed %s", what, got.text(), cli)
		return
	}
	// The text content is the command's JSON line without its newline.
	if got.text() != strings.TrimSuffix(cli, "\n") {
		t.Errorf("%s: text content\n%s\nwant the command's output\n%s", what, got.text(), cli)
	}
	if canonical(t, got.StructuredContent) != canonical(t, []byte(cli)) {
		t.Errorf("%s: structured content\n%s\nwant\n%s", what, got.StructuredContent, canonical(t, []byte(cli)))
	}
}

// agentHint is ctool profile's answer as the server gives it: the same, but for an unknown id's hint,
// which over MCP asks the agent to check the id with the visitor rather than naming the operator's
// files (the command's hint must name them, or the swap would hide a change).
func agentHint(t *testing.T, cli string) string {
	t.Helper()
	var e struct{ Error, Kind, Hint string }
	if json.Unmarshal([]byte(cli), &e) != nil || e.Kind != "not_found" {
		return cli
	}
	if !strings.Contains(e.Hint, "NARRATIVE_DATA_FILE") {
		t.Errorf("ctool profile's hint of an unknown id: %q", e.Hint)
	}
	b, err := textout.Marshal(&fault.Error{Kind: fault.KindNotFound, Message: e.Error, Hint: profile.HintCheckID})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// mcpCase is one tool call and the command line that must answer it the same way.
type mcpCase struct {
	name string
	tool string
	args any
	cli  []string // the command after "ctool"; --db comes first
	env  map[string]string
}

func searchCase(name string, d *schema.Dataset, sql string) mcpCase {
	return mcpCase{name, d.Tool, map[string]any{"sql_query": sql}, []string{"query", d.Name, "--format", "json", "--", sql}, nil}
}

func profileCase(name string, args any, ids ...string) mcpCase {
	return mcpCase{name, schema.Profiles.Tool, args, append([]string{"profile", "--format", "json", "--"}, ids...), nil}
}

// plantingAlias is a red-team probe's alias: DuckDB writes a star's relation name back unquoted, and
// the empty-result hint once ran that text as it was, planting a view every later caller read.
const plantingAlias = `x.* FROM stores AS x) AS t GROUP BY ALL; CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name; ATTACH ':memory:' AS pwn; SELECT true, false, 42 UNION ALL SELECT false, true, 43 --`

// mcpCases covers every tool: the first and last worked example of each dataset, zero rows, a
// truncated result, a left-out column, refusals and SQL errors, and every profile rule. The red team's
// probes come first, so that every later case would show what they planted.
func mcpCases() []mcpCase {
	quoted := `"` + strings.ReplaceAll(plantingAlias, `"`, `""`) + `"`
	cases := []mcpCase{
		searchCase("probe: a hint over a planting alias", schema.Stores,
			"SELECT 1 AS one FROM (SELECT "+quoted+".* FROM stores AS "+quoted+") t WHERE length(store_name) > 0 AND store_name IS NULL"),
		// 200 kB is already fifty times the bound, and quick enough under the concurrent tests' timeout.
		searchCase("probe: a 200 kB error", schema.Stores, "SELECT CAST(repeat('x', 200000) AS INT)"),
	}
	for _, d := range schema.Public() {
		cases = append(cases,
			searchCase(d.Name+" first example", d, d.Examples[0].SQL),
			searchCase(d.Name+" last example", d, d.Examples[len(d.Examples)-1].SQL))
	}
	cases = append(cases,
		searchCase("zero rows", schema.Stores, "SELECT store_name FROM stores WHERE store_name = 'no such store'"),
		searchCase("truncated", schema.Products, "SELECT product_name, price_yen FROM products_typed ORDER BY product_name"),
		searchCase("store_id left out", schema.Products, "SELECT * FROM products LIMIT 2"),
		searchCase("refused: DROP", schema.Stores, "DROP TABLE stores"),
		searchCase("refused: two statements", schema.Stores, "SELECT 1; SELECT 2"),
		searchCase("refused: a file", schema.Events, "SELECT * FROM read_csv('/etc/passwd')"),
		searchCase("refused: profiles", schema.Stores, "SELECT * FROM profiles"),
		searchCase("refused: settings", schema.Stores, "SELECT current_setting('memory_limit')"),
		searchCase("refused: empty", schema.Events, "  "),
		searchCase("sql error", schema.Stores, "SELECT no_such_column FROM stores"),
		mcpCase{"refused: missing sql_query", schema.Stores.Tool, map[string]any{}, []string{"query", "stores", "--format", "json", "--", ""}, nil},
		profileCase("profile", map[string]any{"profile_id": "user_criollo_heavy"}, "user_criollo_heavy"),
		profileCase("profile with spaces", map[string]any{"profile_id": " user_criollo_heavy "}, " user_criollo_heavy "),
		profileCase("profile not found", map[string]any{"profile_id": "nonexistent_user"}, "nonexistent_user"),
		profileCase("profile of the other file", map[string]any{"profile_id": "user_diverse_frequent"}, "user_diverse_frequent"),
		profileCase("no profile id", map[string]any{}),
		profileCase("empty profile id", map[string]any{"profile_id": ""}, ""),
		profileCase("two profile ids", map[string]any{"profile_id": []string{"user_criollo_heavy", "user_family_weekend"}}, "user_criollo_heavy", "user_family_weekend"),
	)
	return cases
}

// runCases calls every case on c and compares it with the command.
func runCases(t *testing.T, c mcpCaller, db string, cases []mcpCase) {
	t.Helper()
	for _, tc := range cases {
		got := callTool(t, c, tc.tool, tc.args)
		want := cliOutput(t, tc.env, append([]string{"--db", db}, tc.cli...)...)
		if tc.tool == schema.Profiles.Tool {
			want = agentHint(t, want)
		}
		sameAsCLI(t, tc.name, got, want)
		if text := got.text(); strings.HasPrefix(tc.name, "probe:") && (strings.Contains(text, "42 rows") || len(text) > 8<<10) {
			t.Errorf("%s: the answer carries what the probe asked for (%d bytes): %.300s", tc.name, len(text), text)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// The tests

// TestMCP runs the tests that only read the sample data on one database, built once.
func TestMCP(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	t.Run("stdio", func(t *testing.T) { testMCPStdio(t, db) })
	t.Run("profile_rules", func(t *testing.T) { testMCPProfileRules(t, db) })
	t.Run("same_shape", func(t *testing.T) { testMCPSameShape(t, db) })
	t.Run("cancel", func(t *testing.T) { testMCPCancel(t, db) })
	t.Run("timeout", func(t *testing.T) { testMCPTimeout(t, db) })
	t.Run("concurrent", func(t *testing.T) { testMCPConcurrentCalls(t, db) })
	t.Run("http", func(t *testing.T) { testMCPHTTP(t, db) })
	t.Run("refuses_to_start", testMCPRefusesToStart)
	t.Run("sdk_client", func(t *testing.T) { testMCPSDKClient(t, db) })
}

// Over stdio: the handshake, the tool list, every tool against its command, arguments the input schema
// refuses, and one log line per call that never holds a profile, an id or SQL.
func testMCPStdio(t *testing.T, db string) {
	p := startMCP(t, nil, "--db", db)
	calls := 0

	t.Run("initialize", func(t *testing.T) {
		msg := p.initialize(t)
		var res struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
			ServerInfo      struct{ Name, Version string }
			Instructions    string `json:"instructions"`
		}
		if err := json.Unmarshal(msg.Result, &res); err != nil || msg.Error != nil {
			t.Fatalf("initialize: %s %v", msg.Result, msg.Error)
		}
		// The instructions name the build's place and end with today's date against the build's
		// (mcpserver's TestInstructionsSayTheDates has them whole).
		if res.ProtocolVersion != "2025-11-25" || res.ServerInfo.Name != "ctool" || res.Capabilities["tools"] == nil ||
			!strings.HasPrefix(res.Instructions, "麻布台ヒルズ周辺の店舗") || !strings.Contains(res.Instructions, "（東京）。このデータは ") {
			t.Errorf("initialize: %s", msg.Result)
		}
		if pong := p.call(t, "ping", nil); pong.Error != nil || string(pong.Result) != "{}" {
			t.Errorf("ping: %s %v", pong.Result, pong.Error)
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		msg := p.call(t, "tools/list", nil)
		var res struct {
			Tools []struct {
				Name         string          `json:"name"`
				Description  string          `json:"description"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
				Annotations  map[string]any  `json:"annotations"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(msg.Result, &res); err != nil {
			t.Fatal(err)
		}
		// The descriptions list the label values of the build the server opened, as `ctool tools --db` does.
		live := database.NewLive(db)
		vocab, err := query.NewEngine(live).Vocabulary(context.Background())
		live.Close()
		if err != nil {
			t.Fatal(err)
		}
		manifest := schema.ManifestWith(vocab, "", schema.ForMCP)
		if manifest[0].Description == schema.ManifestWith(nil, "", schema.ForMCP)[0].Description {
			t.Fatal("the build's label values do not reach the descriptions")
		}
		if len(res.Tools) != len(manifest) {
			t.Fatalf("%d tools: %s", len(res.Tools), msg.Result)
		}
		// The SDK lists tools by name; the manifest lists them by dataset.
		for _, m := range manifest {
			var got = res.Tools[0]
			for _, tool := range res.Tools {
				if tool.Name == m.Name {
					got = tool
				}
			}
			if got.Name != m.Name || got.Description != m.Description || canonical(t, got.InputSchema) != canonical(t, m.InputSchema) {
				t.Errorf("%s: name, description or input schema differs from the manifest's", m.Name)
			}
			a := got.Annotations
			if a["readOnlyHint"] != true || a["idempotentHint"] != true || a["openWorldHint"] != false || len(got.OutputSchema) == 0 {
				t.Errorf("%s: annotations %v, output schema %s", got.Name, a, got.OutputSchema)
			}
		}
	})

	t.Run("tools/call", func(t *testing.T) {
		cases := mcpCases()
		runCases(t, p, db, cases)
		calls += len(cases)
	})

	// truncated says whether more rows match than came back under the agent's own LIMIT too; the same
	// shape again (a worker may answer it by the shape it learned) says the same.
	t.Run("truncated", func(t *testing.T) {
		for _, tc := range []struct {
			sql       string
			count     int
			truncated bool
		}{
			{"SELECT store_name FROM stores WHERE category <> 'x' ORDER BY store_id LIMIT 3", 3, true},
			{"SELECT store_name FROM stores WHERE category <> 'y' ORDER BY store_id LIMIT 3", 3, true},
			{"SELECT store_name FROM stores WHERE category <> 'x' ORDER BY store_id LIMIT 5 OFFSET 15", 5, false},
			{"SELECT store_name FROM stores WHERE category <> 'y' ORDER BY store_id LIMIT 5 OFFSET 15", 5, false},
		} {
			got := callTool(t, p, "search_stores", map[string]any{"sql_query": tc.sql})
			calls++
			var doc struct {
				Count     int  `json:"count"`
				Truncated bool `json:"truncated"`
			}
			if err := json.Unmarshal(got.StructuredContent, &doc); err != nil || got.IsError || doc.Count != tc.count || doc.Truncated != tc.truncated {
				t.Errorf("%s: %s; want count %d, truncated %v", tc.sql, got.StructuredContent, tc.count, tc.truncated)
			}
		}
	})

	t.Run("arguments", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args any
			want string
		}{
			{"search_stores", map[string]any{"sql_query": 5}, `{"error":"search_stores: sql_query: Invalid type. Expected: string, given: integer","kind":"usage","hint":"pass exactly {\"sql_query\": \"...\"}, a string"}`},
			{"search_events", map[string]any{"sql_query": "SELECT 1", "limit": 100}, `{"error":"search_events: (root): Additional property limit is not allowed","kind":"usage","hint":"pass exactly {\"sql_query\": \"...\"}, a string"}`},
			{"get_user_profile", map[string]any{"profile_id": 7}, `{"error":"get_user_profile: profile_id: Invalid type. Expected: string, given: integer","kind":"usage","hint":"pass exactly {\"profile_id\": \"...\"}, a string"}`},
		} {
			got := callTool(t, p, tc.tool, tc.args)
			if !got.IsError || got.text() != tc.want {
				t.Errorf("%s %v: isError=%v %s\nwant %s", tc.tool, tc.args, got.IsError, got.text(), tc.want)
			}
			calls++
		}
		if msg := p.call(t, "tools/call", map[string]any{"name": "list_profiles", "arguments": map[string]any{}}); msg.Error == nil {
			t.Errorf("an unknown tool answered %s", msg.Result)
		}
	})

	t.Run("log", func(t *testing.T) {
		p.stop(t)
		lines := p.stderr.lines(t)
		if len(lines) != calls+1 || lines[0]["serving"] != "stdio" || lines[0]["build"] == "" {
			t.Fatalf("%d log lines for %d calls:\n%s", len(lines), calls, p.stderr)
		}
		for _, l := range lines[1:] {
			_, refused := l["refusal"]
			_, ms := l["ms"].(float64)
			switch l["tool"] {
			case "get_user_profile":
				if !ms || l["found"] == refused || l["rows"] != nil {
					t.Errorf("log line %v", l)
				}
			case "search_events", "search_stores", "search_products":
				if !ms || l["rows"] == nil || l["truncated"] == nil || l["found"] != nil {
					t.Errorf("log line %v", l)
				}
			default:
				t.Errorf("log line %v", l)
			}
		}
		// The log says which tool ran and how it went, never what was asked or found.
		for _, secret := range []string{"user_criollo_heavy", "nonexistent_user", "洋菓子店クリオロ", "チョコレート", "SELECT", "DROP", "passwd", "no such store"} {
			if strings.Contains(p.stderr.String(), secret) {
				t.Errorf("the log holds %q:\n%s", secret, p.stderr)
			}
		}
	})
}

// A server's worker learns a query's shape from the first query of it that finds rows and answers
// the next ones through it (query/shape.go): each answer's notes and hints must still be its own
// query's. For every kind of remark, query A teaches the shape and the same server answers B, of the
// same shape, as `ctool query` answers B alone.
func testMCPSameShape(t *testing.T, db string) {
	p := startMCP(t, nil, "--db", db)
	p.initialize(t)
	for _, tc := range []struct {
		kind string
		d    *schema.Dataset
		a, b string
	}{
		{"offer note: a literal spelling the typed column", schema.Stores,
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND store_name <> 'vegan_available'",
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND store_name <> 'x'"},
		{"offer note: the reverse", schema.Stores,
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND category <> 'x'",
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND category <> 'vegan_available'"},
		{"unknown-hours note", schema.Stores,
			"SELECT store_name FROM stores s WHERE category = 'restaurant' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')",
			"SELECT store_name FROM stores s WHERE category = 'retail' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')"},
		{"unknown-hours note: none", schema.Stores,
			"SELECT store_name FROM stores s WHERE category = 'retail' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'sunday')",
			"SELECT store_name FROM stores s WHERE category = 'cafe' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'sunday')"},
		{"left-out column note", schema.Products,
			"SELECT * FROM products WHERE tag = 'ギフト' LIMIT 2",
			"SELECT * FROM products WHERE tag = 'フード' LIMIT 2"},
		{"truncated hint", schema.Products,
			"SELECT product_name FROM products WHERE product_name LIKE '%弁当%'",
			"SELECT product_name FROM products WHERE product_name LIKE '%セット%'"},
		{"unread-price note", schema.Products,
			"SELECT product_name, price_yen FROM products_typed WHERE product_name LIKE '%セット%'",
			"SELECT product_name, price_yen FROM products_typed WHERE product_name LIKE '%ケーキ%'"},
		{"zero-row hint", schema.Stores,
			"SELECT store_name FROM stores WHERE store_name LIKE '%ソルベ%'",
			"SELECT store_name FROM stores WHERE store_name LIKE '%ｿﾙﾍﾞ%'"},
	} {
		a, okA := guard.Shape(tc.a)
		b, okB := guard.Shape(tc.b)
		if !okA || !okB || a.Text != b.Text {
			t.Fatalf("%s: A and B are not of one shape", tc.kind)
		}
		first := callTool(t, p, tc.d.Tool, map[string]any{"sql_query": tc.a})
		if first.IsError || strings.Contains(first.text(), `"count":0,`) {
			t.Fatalf("%s: A finds no rows, and teaches no shape: %s", tc.kind, first.text())
		}
		got := callTool(t, p, tc.d.Tool, map[string]any{"sql_query": tc.b})
		sameAsCLI(t, tc.kind+": B after A", got, cliOutput(t, nil, "--db", db, "query", tc.d.Name, "--format", "json", "--", tc.b))
	}
}

// The profiles file is the operator's choice, and --profile-id pins the one profile the server returns.
func testMCPProfileRules(t *testing.T, db string) {
	other := map[string]string{"NARRATIVE_DATA_FILE": "narrative_data_2.csv"}
	p := startMCP(t, []string{"NARRATIVE_DATA_FILE=narrative_data_2.csv"}, "--db", db)
	p.initialize(t)
	for _, id := range []string{"user_diverse_frequent", "user_criollo_heavy"} {
		c := profileCase("NARRATIVE_DATA_FILE=narrative_data_2.csv "+id, map[string]any{"profile_id": id}, id)
		c.env = other
		runCases(t, p, db, []mcpCase{c})
	}

	pinned := startMCP(t, nil, "--db", db, "--profile-id", "user_criollo_heavy")
	pinned.initialize(t)
	runCases(t, pinned, db, []mcpCase{profileCase("the pinned profile", map[string]any{"profile_id": "user_criollo_heavy"}, "user_criollo_heavy")})
	for _, id := range []string{"user_family_weekend", "nonexistent_user"} {
		got := callTool(t, pinned, "get_user_profile", map[string]any{"profile_id": id})
		want := fmt.Sprintf(`{"error":"%s%s","kind":"not_found"}`, profile.MsgNotFound, id)
		if !got.IsError || got.text() != want {
			t.Errorf("pinned server, %s: %s, want %s", id, got.text(), want)
		}
	}
	if got := callTool(t, pinned, "get_user_profile", map[string]any{}); got.text() != `{"error":"`+profile.MsgNoProfileID+`","kind":"usage"}` {
		t.Errorf("pinned server, no id: %s", got.text())
	}
}

// A call the client cancels stops its query; the server goes on answering. The server's timeout is a
// minute, so only the cancellation can have stopped the queries.
func testMCPCancel(t *testing.T, db string) {
	p := startMCP(t, nil, "--db", db, "--timeout", "1m", "--metrics", "127.0.0.1:0")
	p.initialize(t)
	metrics, _ := startFields(t, p.stderr)["metrics"].(string)
	// More slow queries than a build has connections: if DuckDB kept running the cancelled ones, the
	// calls after them would find no free connection and wait out the minute.
	const slow = 6
	var ids []int64
	for i := 0; i < slow; i++ {
		id, _ := p.start(t, "tools/call", map[string]any{"name": "search_events", "arguments": map[string]any{"sql_query": slowSQL}})
		ids = append(ids, id)
	}
	// Cancelled before they reach their workers, they would stop too, and the test would prove less.
	waitForGauge(t, metrics, "ctool_workers_busy", slow)
	for _, id := range ids {
		p.notify(t, "notifications/cancelled", map[string]any{"requestId": id, "reason": "the user moved on"})
	}
	stopped := p.waitForLog(t, slow, func(l map[string]any) bool { return l["tool"] == "search_events" && l["refusal"] != nil })
	for _, l := range stopped {
		if l["refusal"] != "timeout" || l["ms"].(float64) >= 60000 {
			t.Errorf("a cancelled call logged %v", l)
		}
	}
	var chans []chan rpcMessage
	for i := 0; i < 8; i++ {
		_, ch := p.start(t, "tools/call", map[string]any{"name": "search_stores", "arguments": map[string]any{"sql_query": "SELECT count(*) AS n FROM stores"}})
		chans = append(chans, ch)
	}
	for _, ch := range chans {
		if r := decodeToolResult(t, p.wait(t, ch)); r.IsError {
			t.Errorf("a call after the cancellations failed: %s", r.text())
		}
	}
}

// A call that runs past --timeout is stopped and says so; the hint is what the model can change.
func testMCPTimeout(t *testing.T, db string) {
	p := startMCP(t, nil, "--db", db, "--timeout", "300ms")
	p.initialize(t)
	got := callTool(t, p, "search_events", map[string]any{"sql_query": slowSQL})
	want := `{"error":"the query ran past its time limit and was stopped; make it cheaper (filter first, avoid large cross joins)","kind":"timeout","hint":"a cheaper query: every call stops after 300ms"}`
	if !got.IsError || got.text() != want {
		t.Errorf("got isError=%v %s\nwant %s", got.IsError, got.text(), want)
	}
	p.waitForLog(t, 1, func(l map[string]any) bool { return l["refusal"] == "timeout" })
}

// 200 calls at once on one stdio connection, and 200 at once over HTTP, each answered as its command
// answers it.
func testMCPConcurrentCalls(t *testing.T, db string) {
	cases := mcpCases()
	want := make([]string, len(cases))
	for i, tc := range cases {
		want[i] = agentHint(t, cliOutput(t, tc.env, append([]string{"--db", db}, tc.cli...)...))
	}
	const n = 200

	t.Run("stdio", func(t *testing.T) {
		p := startMCP(t, nil, "--db", db)
		p.initialize(t)
		chans := make([]chan rpcMessage, n)
		for i := range chans {
			tc := cases[i%len(cases)]
			_, chans[i] = p.start(t, "tools/call", map[string]any{"name": tc.tool, "arguments": tc.args})
		}
		for i, ch := range chans {
			sameAsCLI(t, fmt.Sprintf("call %d (%s)", i, cases[i%len(cases)].name), decodeToolResult(t, p.wait(t, ch)), want[i%len(cases)])
		}
	})

	t.Run("http", func(t *testing.T) {
		s := startMCPHTTP(t, "--db", db)
		var wg sync.WaitGroup
		results := make([]toolResult, n)
		failures := make([]string, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				tc := cases[i%len(cases)]
				id := int64(i)
				b, _ := json.Marshal(rpcMessage{JSONRPC: "2.0", ID: &id, Method: "tools/call", Params: map[string]any{"name": tc.tool, "arguments": tc.args}})
				req, _ := http.NewRequest("POST", s.url, bytes.NewReader(b))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failures[i] = err.Error()
					return
				}
				defer resp.Body.Close()
				var msg rpcMessage
				if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || msg.Error != nil || resp.StatusCode != 200 {
					failures[i] = fmt.Sprintf("HTTP %d %v %+v", resp.StatusCode, err, msg.Error)
					return
				}
				if err := json.Unmarshal(msg.Result, &results[i]); err != nil {
					failures[i] = err.Error()
				}
			}(i)
		}
		wg.Wait()
		for i := range results {
			if failures[i] != "" {
				t.Errorf("call %d: %s", i, failures[i])
				continue
			}
			sameAsCLI(t, fmt.Sprintf("call %d (%s)", i, cases[i%len(cases)].name), results[i], want[i%len(cases)])
		}
	})
}

// An ingest while calls run: no call fails, and the calls that start after it read the new build.
func TestMCPIngestDuringCalls(t *testing.T) {
	t.Parallel()
	sample := ingesttest.SampleInput(t)
	changed := t.TempDir()
	entries, err := os.ReadDir(sample)
	if err != nil {
		t.Fatal(err)
	}
	const oldName, newName = "BMW X5 / X6 Edition Shadow ローンチ記念プレゼントキャンペーン", "BMW X5 / X6 Edition Shadow ローンチ記念プレゼントキャンペーン 第2弾"
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(sample, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "events.csv" {
			if !bytes.Contains(b, []byte(oldName)) {
				t.Fatalf("events.csv has no %q", oldName)
			}
			b = bytes.Replace(b, []byte(oldName), []byte(newName), 1)
		}
		if err := os.WriteFile(filepath.Join(changed, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := ingesttest.Build(t, sample)
	p := startMCP(t, nil, "--db", db)
	p.initialize(t)
	nameSQL := map[string]any{"sql_query": "SELECT event_name FROM events WHERE event_name LIKE 'BMW X5%'"}
	eventName := func(t *testing.T) string {
		r := callTool(t, p, "search_events", nameSQL)
		var doc querytest.Doc
		if r.IsError || json.Unmarshal(r.StructuredContent, &doc) != nil || len(doc.Results) != 1 {
			t.Fatalf("search_events: %s", r.text())
		}
		name, _ := doc.Results[0]["event_name"].(string)
		return name
	}
	if got := eventName(t); got != oldName {
		t.Fatalf("before the ingest: %q", got)
	}

	// Workers call every tool until the ingests are done; every answer must be a success.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	answered := 0
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			calls := []struct {
				tool string
				args any
			}{
				{"search_events", nameSQL},
				{"search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores_typed WHERE parking_available"}},
				{"search_products", map[string]any{"sql_query": "SELECT product_name FROM products_typed WHERE price_yen < 1000"}},
				{"get_user_profile", map[string]any{"profile_id": "user_criollo_heavy"}},
			}
			for i := w; ctx.Err() == nil; i++ {
				c := calls[i%len(calls)]
				msg := p.call(t, "tools/call", map[string]any{"name": c.tool, "arguments": c.args})
				var r toolResult
				json.Unmarshal(msg.Result, &r)
				mu.Lock()
				answered++
				if msg.Error != nil || r.IsError {
					failures = append(failures, fmt.Sprintf("%s: %s %v", c.tool, r.text(), msg.Error))
				}
				mu.Unlock()
			}
		}(w)
	}
	ingesttest.Rebuild(t, changed, db)
	if got := eventName(t); got != newName {
		t.Errorf("after the ingest: %q, want %q", got, newName)
	}
	ingesttest.Rebuild(t, sample, db)
	if got := eventName(t); got != oldName {
		t.Errorf("after the second ingest: %q, want %q", got, oldName)
	}
	stop()
	wg.Wait()
	if answered == 0 {
		t.Fatal("no call ran during the ingests")
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d calls during the ingests failed, first: %s", len(failures), answered, failures[0])
	}
	if r := callTool(t, p, "get_user_profile", map[string]any{"profile_id": "user_criollo_heavy"}); r.IsError {
		t.Errorf("profile after the ingests: %s", r.text())
	}
}

// Over streamable HTTP: the handshake, the tools, the same answers as the commands, and the refusals
// that keep the server to this machine.
func testMCPHTTP(t *testing.T, db string) {
	s := startMCPHTTP(t, "--db", db)

	msg := s.call(t, "initialize", initializeParams)
	if !strings.Contains(string(msg.Result), `"protocolVersion":"2025-11-25"`) || !strings.Contains(string(msg.Result), `"name":"ctool"`) {
		t.Errorf("initialize: %s %v", msg.Result, msg.Error)
	}
	msg = s.call(t, "tools/list", nil)
	for _, m := range schema.Manifest() {
		if !strings.Contains(string(msg.Result), `"name":"`+m.Name+`"`) {
			t.Errorf("tools/list has no %s: %.300s", m.Name, msg.Result)
		}
	}
	runCases(t, s, db, mcpCases())

	id := int64(9)
	ping := rpcMessage{JSONRPC: "2.0", ID: &id, Method: "ping"}
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"a rebound name", map[string]string{"Host": "evil.example.com"}, http.StatusForbidden},
		{"a foreign page", map[string]string{"Origin": "http://evil.example.com"}, http.StatusForbidden},
		{"both", map[string]string{"Host": "evil.example.com:80", "Origin": "http://evil.example.com"}, http.StatusForbidden},
		{"a local page", map[string]string{"Origin": "http://localhost:6274"}, http.StatusOK},
	} {
		if resp, body := s.post(t, ping, tc.header); resp.StatusCode != tc.want {
			t.Errorf("%s: HTTP %d %s, want %d", tc.name, resp.StatusCode, body, tc.want)
		}
	}
	// Each request is answered with its id exactly as sent; an id of null is refused -32600.
	for _, tc := range []struct{ id, want string }{
		{`1.5`, `{"jsonrpc":"2.0","id":1.5,"result":{}}`},
		{`1e3`, `{"jsonrpc":"2.0","id":1e3,"result":{}}`},
		{`-0`, `{"jsonrpc":"2.0","id":-0,"result":{}}`},
		{`9007199254740993`, `{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`},
		{`12345678901234567890123`, `{"jsonrpc":"2.0","id":12345678901234567890123,"result":{}}`},
		{`"\u00e9"`, `{"jsonrpc":"2.0","id":"\u00e9","result":{}}`},
		{`7`, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{`null`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
	} {
		resp, body := s.post(t, json.RawMessage(`{"jsonrpc":"2.0","id":`+tc.id+`,"method":"ping"}`), nil)
		if !strings.HasPrefix(string(body), tc.want) || (tc.id == "null") != (resp.StatusCode == http.StatusBadRequest) {
			t.Errorf("ping with id %s: HTTP %d %s, want %s", tc.id, resp.StatusCode, body, tc.want)
		}
	}
	call := `{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"get_user_profile","arguments":{"profile_id":"user_criollo_heavy"}}}`
	if _, body := s.post(t, json.RawMessage(call), nil); !strings.HasPrefix(string(body), `{"jsonrpc":"2.0","id":2.5,"result":{"content":[{"type":"text","text":"{\"profile_id\":\"user_criollo_heavy\"`) {
		t.Errorf("tools/call with id 2.5: %.300s", body)
	}

	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: HTTP %d, want 405 (stateless: POST only)", resp.StatusCode)
	}
}

// What ctool mcp refuses before it serves: an address other machines can reach (without
// --allow-remote), flags that make no sense together, and a missing database.
func testMCPRefusesToStart(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"--http", "0.0.0.0:8765"}, 2, "ctool: --http 0.0.0.0:8765 is not a loopback address"},
		{[]string{"--http", ":8765"}, 2, "ctool: --http :8765 is not a loopback address"},
		{[]string{"--http", "192.0.2.1:8765"}, 2, "ctool: --http 192.0.2.1:8765 is not a loopback address"},
		{[]string{"--http", "8765"}, 2, "ctool: --http 8765: want host:port"},
		{[]string{"--allow-remote"}, 2, "ctool: --allow-remote applies only with --http"},
		{[]string{"--auth-issuer", "https://as.example"}, 2, "ctool: --auth-issuer applies only with --http"},
		{[]string{"--resource", "https://ctool.example/mcp"}, 2, "ctool: --resource applies only with --auth-issuer"},
		{[]string{"--http", "127.0.0.1:0", "--max-calls-per-user", "8"}, 2, "ctool: --max-calls-per-user applies only with --auth-issuer"},
		{[]string{"--http", "127.0.0.1:0", "--allow-typ-jwt"}, 2, "ctool: --allow-typ-jwt applies only with --auth-issuer"},
		{[]string{"--http", "127.0.0.1:0", "--jwks-refresh", "1m"}, 2, "ctool: --jwks-refresh applies only with --auth-issuer"},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "https://as.example", "--resource", "https://ctool.example/mcp", "--jwks-refresh", "5s"}, 2,
			"ctool: --jwks-refresh 5s: want at least 10s"},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "https://as.example", "--resource", "https://ctool.example/mcp", "--profile-id", "u1"}, 2,
			"ctool: --profile-id and --auth-issuer cannot be used together"},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "https://as.example"}, 2, "ctool: --auth-issuer needs --resource"},
		{[]string{"--http", "0.0.0.0:8765", "--auth-issuer", "http://as.example", "--resource", "https://ctool.example/mcp"}, 2,
			`ctool: --auth-issuer: "http://as.example" is not https (plain http only on a loopback address)`},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "https://as.example", "--resource", "https://ctool.example/mcp", "--max-calls-per-user", "0"}, 2,
			"ctool: --max-calls-per-user 0: want at least 1"},
		{[]string{"--timeout", "2m"}, 2, "ctool: --timeout must be positive and at most 1m0s"},
		{[]string{"--drain", "5s"}, 2, "ctool: --drain applies only with --http"},
		{[]string{"--memory", "lots"}, 2, `ctool: --memory must be a size such as 1GiB, not "lots"`},
		{[]string{"--memory", "-1MiB"}, 2, `ctool: --memory must be a size such as 1GiB, not "-1MiB"`},
		{[]string{"--http", "127.0.0.1:0", "--drain", "0s"}, 2, "ctool: --drain must be positive and at most 10m"},
		{[]string{"--metrics", "9465"}, 2, "ctool: --metrics 9465: want host:port"},
		{[]string{"--metrics", "0.0.0.0:9465"}, 2, "ctool: --metrics 0.0.0.0:9465 is not a loopback address"},
		{[]string{"--http", "127.0.0.1:8765", "--metrics", "127.0.0.1:8765"}, 2, "ctool: --metrics 127.0.0.1:8765: give it an address of its own"},
		{[]string{"extra"}, 2, `ctool: mcp takes no arguments, got "extra"`},
		{[]string{"--db", filepath.Join(t.TempDir(), "none.duckdb")}, 3, "ctool: no usable ctool database"},
	} {
		cmd := mcpCommand(t, nil, tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr, cmd.Stdin = &stderr, strings.NewReader("")
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.status || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("ctool mcp %q: exit %d, stderr %q; want %d, %q", tc.args, code, stderr.String(), tc.status, tc.stderr)
		}
	}
}

// The official SDK's client, on the newest protocol and an older one, over stdio and HTTP.
func testMCPSDKClient(t *testing.T, db string) {
	s := startMCPHTTP(t, "--db", db)
	transports := map[string]func() mcp.Transport{
		"stdio": func() mcp.Transport { return &mcp.CommandTransport{Command: mcpCommand(t, nil, "--db", db)} },
		"http":  func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: s.url} },
	}
	for name, transport := range transports {
		for _, version := range []string{"", "2025-06-18"} {
			t.Run(name+"/"+version, func(t *testing.T) {
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "ctool-e2e", Version: "1"}, nil).
					Connect(ctx, transport(), &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				tools, err := cs.ListTools(ctx, nil)
				if err != nil || len(tools.Tools) != 4 {
					t.Fatalf("tools/list: %v %v", tools, err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_stores",
					Arguments: map[string]any{"sql_query": "SELECT store_name FROM stores WHERE store_name = '麻布台ヒルズマーケット'"}})
				if err != nil || res.IsError {
					t.Fatalf("tools/call: %v %v", res, err)
				}
				doc, _ := res.StructuredContent.(map[string]any)
				if doc["count"] != float64(1) {
					t.Errorf("tools/call: %v", res.StructuredContent)
				}
			})
		}
	}
}
