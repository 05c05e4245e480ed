package fault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/fault"
)

// The command reference's exit status table is the one generated from Kinds.
func TestDocumentedExitStatuses(t *testing.T) {
	const doc = "../../docs/commands.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- exit-statuses:begin -->\n", "<!-- exit-statuses:end -->"
	_, rest, ok := strings.Cut(string(b), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s lacks the %q and %q markers", doc, begin, end)
	}
	if want := exitStatusTable(); table != want {
		t.Errorf("%s's exit status table is out of date; between the markers put:\n%s", doc, want)
	}
}

func TestErrorJSON(t *testing.T) {
	tests := []struct {
		err  *fault.Error
		want string
	}{
		{&fault.Error{Kind: fault.KindNotFound, Message: "ユーザーが見つかりません: <x>"}, `{"error":"ユーザーが見つかりません: <x>","kind":"not_found"}`},
		{&fault.Error{Kind: fault.KindNoDatabase, Message: "no usable ctool database", Hint: "ctool ingest"}, `{"error":"no usable ctool database","kind":"no_database","hint":"ctool ingest"}`},
	}
	for _, tt := range tests {
		b, err := tt.err.MarshalJSON()
		if err != nil || string(b) != tt.want {
			t.Errorf("got %s, %v; want %s", b, err, tt.want)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not JSON", b)
		}
	}
}

func TestEveryKindHasOneStatus(t *testing.T) {
	seen := map[fault.Kind]bool{}
	for _, k := range fault.Kinds {
		if seen[k.Kind] || k.Status < 1 || k.Meaning == "" {
			t.Errorf("kind %q: listed twice, or without a status or meaning", k.Kind)
		}
		seen[k.Kind] = true
	}
	if fault.KindUsage.Status() != 2 || fault.KindNoDatabase.Status() != 3 || fault.KindIO.Status() != 4 || fault.KindRefused.Status() != 1 {
		t.Error("the documented statuses changed")
	}
}

// Explain gives every error a kind: its own *Error wherever it is in the chain, a deadline as a
// timeout, a file system failure as I/O, the rest as internal, keeping the cause for errors.Is.
func TestExplain(t *testing.T) {
	own := fault.Errorf(fault.KindRefused, "refused: %w", io.EOF).WithHint("ctool query --help")
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "nowhere"))
	tests := []struct {
		err  error
		kind fault.Kind
		msg  string
		hint string
	}{
		{own, fault.KindRefused, "refused: EOF", "ctool query --help"},
		{fmt.Errorf("wrapped: %w", own), fault.KindRefused, "refused: EOF", "ctool query --help"},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), fault.KindTimeout, "query: context deadline exceeded", ""},
		{statErr, fault.KindIO, statErr.Error(), ""},
		{fmt.Errorf("open: %w", fs.ErrPermission), fault.KindIO, "open: permission denied", ""},
		{errors.New("boom"), fault.KindInternal, "boom", ""},
	}
	for _, tt := range tests {
		e := fault.Explain(tt.err)
		if e.Kind != tt.kind || e.Message != tt.msg || e.Hint != tt.hint {
			t.Errorf("Explain(%v) = %q %q %q, want %q %q %q", tt.err, e.Kind, e.Message, e.Hint, tt.kind, tt.msg, tt.hint)
		}
		if !errors.Is(e, tt.err) && !errors.Is(tt.err, e) {
			t.Errorf("Explain(%v) lost its cause", tt.err)
		}
	}
	if fault.Explain(nil) != nil {
		t.Error("Explain(nil) is not nil")
	}
	if !errors.Is(own, io.EOF) || own.Error() != "refused: EOF" {
		t.Errorf("Errorf lost the %%w cause: %v", own)
	}
	if plain := fault.Errorf(fault.KindUsage, "bad"); plain.Hint != "" || own.Hint == "" {
		t.Error("WithHint changed the error it was called on")
	}
}

func TestExitStatusHelp(t *testing.T) {
	got := fault.ExitStatusHelp("ok", fault.KindIO, fault.KindUsage)
	want := "EXIT STATUS:\n" +
		"   0               ok\n" +
		"   2  usage        " + meaning(fault.KindUsage) + "\n" +
		"   4  io           " + meaning(fault.KindIO) + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if fault.Kind("unheard_of").Status() != 1 {
		t.Error("an unknown kind is not exit status 1")
	}
}

func meaning(k fault.Kind) string {
	for _, i := range fault.Kinds {
		if i.Kind == k {
			return i.Meaning
		}
	}
	return ""
}

// An error's text is bounded wherever it goes: DuckDB can quote megabytes of a query's own values.
func TestExplainBoundsTheText(t *testing.T) {
	long := strings.Repeat("あ", fault.MaxMessageBytes) // three bytes each
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"typed", &fault.Error{Kind: fault.KindSQL, Message: long, Hint: long}},
		{"wrapped", fmt.Errorf("query: %w", &fault.Error{Kind: fault.KindSQL, Message: long})},
		{"plain", errors.New(long)},
	} {
		e := fault.Explain(tc.err)
		if len(e.Message) > fault.MaxMessageBytes || len(e.Hint) > fault.MaxHintBytes {
			t.Errorf("%s: message %d bytes, hint %d", tc.name, len(e.Message), len(e.Hint))
		}
		if !strings.HasPrefix(e.Message, "あああ") || !strings.HasSuffix(e.Message, " more bytes)") || !utf8.ValidString(e.Message) {
			t.Errorf("%s: %q...%q", tc.name, e.Message[:12], e.Message[len(e.Message)-24:])
		}
	}
	short := &fault.Error{Kind: fault.KindSQL, Message: "short"}
	if fault.Explain(short) != short {
		t.Error("a short error is copied")
	}
}

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{strings.Repeat("x", 100), 50, "xxxxxxxxxx… (90 more bytes)"},
		{strings.Repeat("é", 50), 50, "ééééé… (90 more bytes)"},
		{"abcdef", 2, "… (6 more bytes)"},
	} {
		if got := fault.Bounded(tc.s, tc.n); got != tc.want {
			t.Errorf("Bounded(%.10q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// exitStatusTable is the Markdown table of every exit status and kind that docs/commands.md holds.
func exitStatusTable() string {
	var b strings.Builder
	b.WriteString("| status | kind | meaning |\n| --- | --- | --- |\n")
	b.WriteString("| 0 | | success (a query that matches nothing is a success) |\n")
	for _, i := range fault.Kinds {
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", i.Status, i.Kind, i.Meaning)
	}
	return b.String()
}
