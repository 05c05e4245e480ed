package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idPrefix begins this test process's surrogates.
var idPrefix, _ = surrogateIDs()

// idCases are request ids and how each is answered: with the id as sent, or refused -32600 with the
// id the answer names.
var idCases = []struct {
	id      string
	refused string // "": answered with id exactly
}{
	{`1`, ""},
	{`-7`, ""},
	{`9007199254740992`, ""}, // 2^53, which a float64 holds
	{`1.5`, ""},
	{`1.0`, ""},
	{`1e3`, ""},
	{`-0`, ""},
	{`9007199254740993`, ""}, // 2^53+1
	{`-9007199254740993`, ""},
	{`9223372036854775808`, ""}, // 2^63
	{`12345678901234567890123`, ""},
	{`1e400`, ""}, // past float64: the SDK cannot decode it at all
	{`"abc"`, ""},
	{`""`, ""},
	{`"é"`, ""},
	{`"\u00e9"`, ""},
	{`"\ud800"`, ""}, // a lone surrogate, which the SDK would answer as U+FFFD
	{`"a\nb"`, ""},
	{`null`, `null`}, // MCP: never null; the SDK would take it for a notification
	{`true`, `null`},
	{`{"a":1}`, `null`},
	{`[1]`, `null`},
}

// rawIDs maps each JSON-RPC answer in out (one per line, or a JSON array of them) by its id as
// written, compacted, to the answer.
func rawIDs(t *testing.T, out string) map[string]map[string]json.RawMessage {
	t.Helper()
	got := map[string]map[string]json.RawMessage{}
	add := func(raw json.RawMessage) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("not a JSON object: %s", raw)
		}
		var id bytes.Buffer
		json.Compact(&id, m["id"])
		got[id.String()] = m
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if line[0] == '[' {
			var batch []json.RawMessage
			if err := json.Unmarshal([]byte(line), &batch); err != nil {
				t.Fatalf("not a batch: %s", line)
			}
			for _, raw := range batch {
				add(raw)
			}
			continue
		}
		add(json.RawMessage(line))
	}
	return got
}

func checkIDs(t *testing.T, transport string, got map[string]map[string]json.RawMessage, out string) {
	t.Helper()
	for _, tc := range idCases {
		if tc.refused != "" {
			continue
		}
		m, ok := got[tc.id]
		if !ok || string(m["result"]) != "{}" {
			t.Errorf("%s: ping with id %s: no answer with that id\n%s", transport, tc.id, out)
		}
	}
}

// Over stdio, each ping is answered with its id exactly as sent, and an id that is not a string or
// a number is answered -32600 with id null; the session goes on.
func TestStdioKeepsIDs(t *testing.T) {
	var in strings.Builder
	in.WriteString(strings.Replace(initializeLine, `"id":1`, `"id":"init"`, 1) + "\n" + initializedLine + "\n")
	for _, tc := range idCases {
		in.WriteString(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":99,"method":"ping"}` + "\n")
	out := &syncBuffer{}
	if err := serveStdio(context.Background(), slowServer(0), strings.NewReader(in.String()), out, time.Second); err != nil {
		t.Fatal(err)
	}
	got := rawIDs(t, out.String())
	checkIDs(t, "stdio", got, out.String())
	if m, ok := got["null"]; !ok || !strings.Contains(string(m["error"]), `"code":-32600`) {
		t.Errorf("no -32600 with id null for the ids MCP does not allow\n%s", out)
	}
	if _, ok := got["99"]; !ok {
		t.Errorf("the ping after the refused ids went unanswered\n%s", out)
	}
	nulls := strings.Count(out.String(), `"id":null`)
	if want := 4; nulls != want {
		t.Errorf("%d answers with id null, want %d\n%s", nulls, want, out)
	}
}

// Two calls whose ids the SDK would take for the same (1.5 and 1) are told apart: cancelling 1.5
// stops that call only, and 1 is answered with its own result.
func TestStdioCancelsTheRightID(t *testing.T) {
	started, cancelled, release := make(chan string, 2), make(chan string, 2), make(chan struct{})
	out := &syncBuffer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ N string }
			json.Unmarshal(req.Params.Arguments, &args)
			started <- args.N
			select {
			case <-ctx.Done():
				cancelled <- args.N
			case <-release:
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "call " + args.N}}}, nil
		})
	call := func(id, n string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow","arguments":{"n":"` + n + `"}}}` + "\n"
	}
	// recv waits for what the tool reports; the bound is a hang guard, not a speed check.
	recv := func(ch chan string, what string) string {
		select {
		case n := <-ch:
			return n
		case <-time.After(30 * time.Second):
			t.Fatalf("no call %s\n%s", what, out)
			return ""
		}
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- serveStdio(context.Background(), srv, inR, out, time.Minute) }()
	io.WriteString(inW, initializeLine+"\n"+initializedLine+"\n"+call("1.5", "a"))
	recv(started, "started")
	io.WriteString(inW, call("1", "b"))
	recv(started, "started beside it")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`+"\n")
	if n := recv(cancelled, "cancelled"); n != "a" {
		t.Errorf("cancelling 1.5 stopped call %s, want a", n)
	}
	close(release)
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := rawIDs(t, out.String())
	if m, ok := got["1"]; !ok || !strings.Contains(string(m["result"]), "call b") {
		t.Errorf("call 1 was not answered with its result\n%s", out)
	}
	if _, ok := got["1.5"]; ok {
		t.Errorf("the cancelled call 1.5 was answered\n%s", out)
	}
	if strings.Contains(out.String(), idPrefix) {
		t.Errorf("a surrogate id reached the client\n%s", out)
	}
}

// A legacy batch (before 2025-06-18) over stdio: each answer has its own id as sent.
func TestStdioKeepsIDsInABatch(t *testing.T) {
	const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	in := legacyInit + "\n" + initializedLine + "\n" +
		`[{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}]` + "\n"
	out := &syncBuffer{}
	// In a bubble, where the drain would pass at once: the end of the input is held only until the
	// batch is answered, not for the drain.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := serveStdio(context.Background(), slowServer(0), strings.NewReader(in), out, time.Second); err != nil {
			t.Fatal(err)
		}
		if held := time.Since(start); held > 0 {
			t.Errorf("the end of the input was held %v after the batch was answered", held)
		}
	})
	got := rawIDs(t, out.String())
	for _, id := range []string{"1.5", "1", "12345678901234567890123"} {
		if _, ok := got[id]; !ok {
			t.Errorf("no answer with id %s\n%s", id, out)
		}
	}
}

// Over stateless HTTP, the same: the real handler, one POST per id.
func TestHTTPKeepsIDs(t *testing.T) {
	ts := httptest.NewServer(handler(slowServer(0), nil))
	defer ts.Close()
	var all strings.Builder
	for _, tc := range idCases {
		status, body := postJSON(t, ts.URL+Path, `{"jsonrpc":"2.0","id":`+tc.id+`,"method":"ping"}`, nil)
		want := http.StatusOK
		if tc.refused != "" {
			want = http.StatusBadRequest
		}
		if status != want {
			t.Errorf("id %s: status %d, want %d: %s", tc.id, status, want, body)
		}
		if tc.refused == "null" && tc.id == "null" {
			if !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) {
				t.Errorf("id null: %s", body)
			}
		}
		if tc.refused == "" {
			all.WriteString(body + "\n")
		}
	}
	checkIDs(t, "http", rawIDs(t, all.String()), all.String())
	if strings.Contains(all.String(), idPrefix) {
		t.Errorf("a surrogate id reached the client\n%s", all.String())
	}

	// A legacy batch: one POST, an array of answers.
	status, body := postJSON(t, ts.URL+Path, `[{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		map[string]string{"Mcp-Protocol-Version": "2025-03-26"})
	got := rawIDs(t, body)
	if _, ok := got["1.5"]; status != 200 || !ok {
		t.Errorf("batch: %d %s", status, body)
	}
	if _, ok := got["1"]; !ok {
		t.Errorf("batch: %d %s", status, body)
	}
}

func postJSON(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSDKKeeps(t *testing.T) {
	for id, want := range map[string]bool{
		`0`: true, `1`: true, `-1`: true, `9007199254740992`: true, `-9007199254740992`: true,
		`9007199254740993`: false, `-0`: false, `1.0`: false, `1e3`: false, `1E3`: false, `01`: false,
		`"a b"`: true, `""`: true, `"é"`: false, `"\u0041"`: false, `"a\"b"`: false, `"`: false, ``: false,
		`null`: false, `true`: false, `-`: false, `99999999999999999`: false,
	} {
		if got := sdkKeeps([]byte(id)); got != want {
			t.Errorf("sdkKeeps(%s) = %v, want %v", id, got, want)
		}
	}
}

// FuzzIDKeeper: whatever a client sends, the keeper's output is what the SDK can decode whenever the
// input was, and a surrogate in an answer comes back as the id sent, byte for byte.
func FuzzIDKeeper(f *testing.F) {
	for _, tc := range idCases {
		f.Add(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`)
	}
	f.Add(`[{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`)
	f.Add(`{"jsonrpc":"2.0","id":1.5,"id":2,"method":"x"}`)
	f.Fuzz(func(t *testing.T, in string) {
		k := &idKeeper{}
		out, err := k.body([]byte(in))
		if err != nil {
			return
		}
		if json.Valid([]byte(in)) && !json.Valid(out) {
			t.Fatalf("%q became %q, not JSON", in, out)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) != nil {
			return
		}
		var s string
		if json.Unmarshal(m["id"], &s) != nil || !strings.HasPrefix(s, idPrefix) {
			return
		}
		var orig map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &orig); err != nil {
			t.Fatalf("a surrogate for %q, which is not an object", in)
		}
		answer := `{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":{}}`
		restored := k.restore([]byte(answer))
		if want := `{"jsonrpc":"2.0","id":` + string(orig["id"]) + `,"result":{}}`; string(restored) != want {
			t.Fatalf("answer %s restored as %s, want %s", answer, restored, want)
		}
		if k.kept() {
			t.Fatalf("the surrogate of %q is still kept after its answer", in)
		}
	})
}

// With auth, the same edge: a request with a token and id 1.5 is answered with id 1.5.
func TestAuthKeepsIDs(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{})
	got := s.post(t, iss.mint(t, "rsa1", iss.claims("u")), `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`)
	if got.status != 200 || !strings.HasPrefix(got.body, `{"jsonrpc":"2.0","id":1.5,"result":{`) {
		t.Errorf("%d %.200s", got.status, got.body)
	}
}

// The keeper's cost on a call's request, with an id the SDK keeps and with one it does not:
// go test ./mcpserver -run '^$' -bench IDKeeper
func BenchmarkIDKeeper(b *testing.B) {
	body := callBody("search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores WHERE category = 'cafe'"})
	for _, bc := range []struct{ name, body string }{
		{"kept", body},
		{"replaced", strings.Replace(body, `"id":1`, `"id":1.5`, 1)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			answer := []byte(`{"jsonrpc":"2.0","id":"` + idPrefix + `1","result":{}}`)
			for b.Loop() {
				k := &idKeeper{}
				if _, err := k.body([]byte(bc.body)); err != nil {
					b.Fatal(err)
				}
				k.restore(answer)
			}
		})
	}
}
