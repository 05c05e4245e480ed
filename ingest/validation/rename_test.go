package validation

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/schema"
)

func TestRenameScore(t *testing.T) {
	tests := []struct {
		column, field string
		want          bool
	}{
		{"tag", "tags", true},            // a plural s
		{"store_id", "Store-ID", true},   // case and separators
		{"store_id", "ｓｔｏｒｅ＿ｉｄ", true},   // width
		{"date_time", "date time", true}, // a space for the underscore
		{"visits", "vistis", true},       // two edits
		{"capacity", "capcity", true},    // one
		{"tag", "tap", true},             // one edit, a short name
		{"tag", "age", false},            // two edits are too many for three letters
		{"capacity", "capacity_text", false},
		{"store_id", "product_name", false},
		{"age", strings.Repeat("x", 10000), false},
	}
	for _, tt := range tests {
		if _, got := renameScore(tt.column, tt.field); got != tt.want {
			t.Errorf("renameScore(%q, %q) = %v, want %v", tt.column, tt.field, got, tt.want)
		}
	}
}

// Each field pairs with one missing column, the likeliest first: a folded match before an edit.
func TestRenamesPairOnce(t *testing.T) {
	d := &schema.Dataset{Name: "d", Columns: []schema.Column{{Name: "tab"}, {Name: "tag"}}}
	header := []string{"TAG"}
	got := renames(d, header, []int{0, 1}, []int{0})
	if want := map[int]int{1: 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("renames = %v, want %v (tag, the same folded, takes TAG from tab, an edit away)", got, want)
	}
}

// A whole-file problem is annotated on its file with no line, as the text report gives it line 0; a
// problem of a line names it.
func TestGitHubWholeFile(t *testing.T) {
	r := &Report{}
	r.add(Problem{File: "in/events.csv", Column: "date_time", Rule: "upcoming", Severity: SeverityWarning, Message: "nothing upcoming"})
	r.add(Problem{File: "in/events.csv", Line: 3, Column: "date_time", Rule: RuleFormat, Message: "bad"})
	var buf bytes.Buffer
	if err := r.Write(&buf, FormatGitHub); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	// The file is named from the repository's root: ingest/validation/in/events.csv.
	if want := "in/events.csv,title=ctool validate%3A upcoming::date_time: nothing upcoming"; !strings.HasPrefix(lines[0], "::warning file=") ||
		!strings.HasSuffix(lines[0], want) || strings.Contains(lines[0], "line=") {
		t.Errorf("whole file:\n got %s\nwant ::warning file=…%s", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "::error file=") || !strings.Contains(lines[1], "in/events.csv,line=3,") {
		t.Errorf("a line: %s", lines[1])
	}
	buf.Reset()
	r.Write(&buf, FormatText)
	if !strings.HasPrefix(buf.String(), "in/events.csv:0: date_time: upcoming:") {
		t.Errorf("text: %s", buf.String())
	}
}

// A record is an object in JSON, its key's columns in order, and reads back the same; the text names
// the key's cells but the problem's own column.
func TestRecord(t *testing.T) {
	p := Problem{File: "p.csv", Line: 2, Column: "store_id", Rule: RuleReference, Message: `"X" is not a stores.store_id`,
		Record: Record{{"store_id", "X"}, {"product_name", "ギフト\n<箱>"}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the report writes it
	if err := enc.Encode(p); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if !strings.Contains(string(b), `"record":{"store_id":"X","product_name":"ギフト\n<箱>"}`) {
		t.Errorf("JSON: %s", b)
	}
	var back Problem
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("read back %+v (%v), want %+v", back, err, p)
	}
	if want := `p.csv:2: store_id: reference: "X" is not a stores.store_id (record: product_name "ギフト\n<箱>")`; p.String() != want {
		t.Errorf("text:\n got %s\nwant %s", p.String(), want)
	}
}

// Rows of a public dataset name their record; profiles, personal data, never do.
func TestRecordOfRows(t *testing.T) {
	dir := sampleInput(t, func(name, text string) string {
		switch name {
		case schema.Products.SourceFile:
			return strings.Replace(text, "\nSTR-0001,", "\nSTR-NONE,", 1)
		case "narrative_data.csv":
			return strings.Replace(text, ",STR-0001,", ",STR-NONE,", 1)
		}
		return text
	})
	res, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range res.Report.Problems {
		if p.Rule != RuleReference {
			continue
		}
		d := datasetOf(p.File)
		seen[d.Name] = true
		switch {
		case d.Private && p.Record != nil:
			t.Errorf("a profile's problem names its record: %+v", p)
		case !d.Private && (len(p.Record) != 2 || p.Record[0].Column != "store_id" || p.Record[1].Column != "product_name"):
			t.Errorf("a product's problem has the record %+v, want store_id and product_name", p.Record)
		}
	}
	if !seen["products"] || !seen["profiles"] {
		t.Errorf("reference problems of %v, want products and profiles", seen)
	}
}

// A missing input directory, or one that is a file, is an io error with the way forward, and still
// the *fs.PathError.
func TestInputsHint(t *testing.T) {
	file := filepath.Join(t.TempDir(), "events.csv")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(t.TempDir(), "nope"), file} {
		_, err := Inputs(dir)
		e := fault.Explain(err)
		var pe *fs.PathError
		if e == nil || e.Kind != fault.KindIO || e.Hint != InputHint || !errors.As(err, &pe) {
			t.Errorf("Inputs(%s): %#v", dir, e)
		}
	}
}
