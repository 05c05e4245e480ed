package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// Table and markdown output show control characters in cells and headers as escapes, so data cannot
// drive the terminal (ESC sequences, C1 controls, bidi overrides); csv and jsonl keep the data exact.
func TestRenderEscapesControlCharacters(t *testing.T) {
	cell := "red\x1b[31m\u202eevil\u009b2J\x00\xff"
	res := &query.Result{Dataset: schema.Stores, Columns: []query.Column{{Name: "name\x1b]0;title\x07", Type: "VARCHAR"}},
		Rows: [][]any{{cell}}}
	for _, format := range []string{FormatText, FormatMarkdown} {
		var out bytes.Buffer
		if err := Write(&out, &out, res, Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		for _, r := range strings.ReplaceAll(out.String(), "\n", "") {
			if escape.Unsafe(r) {
				t.Errorf("%s output holds the raw control %U:\n%q", format, r, out.String())
			}
		}
		for _, want := range []string{`red\x1b[31m\u202eevil\u009b2J\x00\xff`, `name\x1b]0;title\x07`} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s output lacks %s:\n%s", format, want, out.String())
			}
		}
	}
	var out bytes.Buffer
	if err := Write(&out, &out, res, Options{Format: FormatCSV}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), cell) {
		t.Errorf("csv changed the data: %q", out.String())
	}
}

// The hint quotes the query's literal and the data's values: on the notes stream, which may be a
// terminal, control characters are shown escaped.
func TestWriteHintEscapes(t *testing.T) {
	var b strings.Builder
	res := &query.Result{Hint: "category = '\x1b[31mカフェ' matches no row of stores"}
	if err := writeHint(&b, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") || !strings.HasPrefix(b.String(), "ctool: hint: category = '") {
		t.Errorf("writeHint wrote %q", b.String())
	}
	b.Reset()
	res.Rows = [][]any{{"x"}}
	if writeHint(&b, res); b.Len() != 0 {
		t.Errorf("a result with rows got a hint: %q", b.String())
	}
}
