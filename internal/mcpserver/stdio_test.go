package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What the stdio filter passes to the SDK, and what it answers itself.
func TestStdioFilter(t *testing.T) {
	tests := []struct {
		line   string
		passed bool
		answer string // the start of the filter's own answer
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, true, ""},
		{`{not json}`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, false, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":3}`, false, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`[]`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`[1]`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`null`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`42`, false, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
	}
	for _, tt := range tests {
		var out, passed bytes.Buffer
		f := newStdioFilter(&out)
		if err := f.pump(strings.NewReader(tt.line+"\n\n"), &passed); err != nil {
			t.Fatal(err)
		}
		if got := passed.Len() > 0; got != tt.passed {
			t.Errorf("%s: passed to the SDK = %v", tt.line, got)
		}
		if !strings.HasPrefix(out.String(), tt.answer) || (tt.answer == "") != (out.Len() == 0) {
			t.Errorf("%s: answered %q, want %q...", tt.line, out.String(), tt.answer)
		}
	}
}

// Once a protocol of 2025-06-18 or later is asked for, a batch is answered -32600 and not passed on;
// before, or with an older one, it is passed on.
func TestStdioFilterBatches(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	initLine := func(version string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `"}}`
	}
	for _, tc := range []struct {
		in     string
		passed bool
	}{
		{batch, true},
		{initLine("2025-03-26") + "\n" + batch, true},
		{initLine("2025-06-18") + "\n" + batch, false},
		{initLine("2025-11-25") + "\n" + batch, false},
	} {
		var out, passed bytes.Buffer
		f := newStdioFilter(&out)
		if err := f.pump(strings.NewReader(tc.in+"\n"), &passed); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(passed.String(), batch); got != tc.passed {
			t.Errorf("%s: batch passed on = %v, want %v (answered %q)", tc.in, got, tc.passed, out.String())
		}
		if !tc.passed && !strings.Contains(out.String(), `"code":-32600`) {
			t.Errorf("%s: answered %q, want -32600", tc.in, out.String())
		}
	}
}

// A line longer than the limit is answered and skipped; the next line still gets through.
func TestStdioFilterLongLine(t *testing.T) {
	var out, passed bytes.Buffer
	f := newStdioFilter(&out)
	in := io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("a", maxLine)), strings.NewReader("\"}\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"))
	if err := f.pump(in, &passed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || passed.String() != `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n" {
		t.Errorf("answered %q, passed %q", out.String(), passed.String())
	}
}

// The answer to a cancelled request is dropped; every other message is written.
func TestStdioFilterDropsCancelledAnswers(t *testing.T) {
	var out, passed bytes.Buffer
	f := newStdioFilter(&out)
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}` + "\n"
	if err := f.pump(strings.NewReader(in), &passed); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"id\": 1}"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
	} {
		f.Write([]byte(msg + "\n"))
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"isError":true}}` + "\n" + `{"jsonrpc":"2.0","id":9,"result":{}}` + "\n"
	if out.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", out.String(), want)
	}
}

// FuzzStdioFilter: whatever arrives on stdin, the filter passes the SDK only lines it can decode,
// answers every other line with a JSON-RPC error, and reads the SDK's answers without failing.
func FuzzStdioFilter(f *testing.F) {
	for _, s := range []string{
		initializeLine + "\n" + slowCallLine + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n" + `[{"jsonrpc":"2.0","id":"a","method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` + "\n{bad\n[]\nnull\n",
		`{"jsonrpc":"2.0","id":3}` + "\n" + `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":-0,"method":"ping"},{"jsonrpc":"2.0","id":"\ud800","method":"ping"}]` + "\n" + `{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out, passed bytes.Buffer
		fl := newStdioFilter(&out)
		if err := fl.pump(bytes.NewReader(in), &passed); err != nil {
			t.Fatal(err)
		}
		var requests []*jsonrpc.Request
		for _, line := range strings.Split(strings.TrimSuffix(passed.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var msgs []json.RawMessage
			if line[0] == '[' {
				if err := json.Unmarshal([]byte(line), &msgs); err != nil || len(msgs) == 0 {
					t.Fatalf("passed a bad batch %q", line)
				}
			} else {
				msgs = []json.RawMessage{json.RawMessage(line)}
			}
			for _, raw := range msgs {
				msg, err := jsonrpc.DecodeMessage(raw)
				if err != nil && line[0] != '[' {
					t.Fatalf("passed %q, which the SDK cannot decode: %v", line, err)
				}
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					requests = append(requests, req)
				}
			}
		}
		own := out.String() // the filter's own answers
		// The SDK answers each request it was passed, with the id it read: no surrogate reaches the
		// client.
		for _, req := range requests {
			b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage("{}")})
			if err != nil {
				t.Fatal(err)
			}
			fl.Write(append(b, '\n'))
		}
		if strings.Contains(out.String(), idPrefix) {
			t.Fatalf("a surrogate id reached the client:\n%s", out.String())
		}
		for _, line := range strings.Split(strings.TrimSuffix(own, "\n"), "\n") {
			if line == "" {
				continue
			}
			var answer struct {
				JSONRPC string `json:"jsonrpc"`
				Error   *struct {
					Code int64 `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.JSONRPC != "2.0" || answer.Error == nil {
				t.Fatalf("answered %q, not a JSON-RPC error", line)
			}
		}
		// The SDK's answers go through Write, which reads their ids.
		if _, err := fl.Write(in); err != nil {
			t.Fatal(err)
		}
	})
}
