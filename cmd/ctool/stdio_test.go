package main

import (
	"bytes"
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
		f := &stdioFilter{out: &out, inFlight: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}}
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

// A line longer than the limit is answered and skipped; the next line still gets through.
func TestStdioFilterLongLine(t *testing.T) {
	var out, passed bytes.Buffer
	f := &stdioFilter{out: &out, inFlight: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}}
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
	f := &stdioFilter{out: &out, inFlight: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}}
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
