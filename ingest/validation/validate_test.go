package validation

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

func TestCellRules(t *testing.T) {
	v, err := newValidator(0)
	if err != nil {
		t.Fatal(err)
	}
	v.strict = true // the rules' messages; TestUntypedCellsAreWarnings has their severity
	col := func(d *schema.Dataset, name string) schema.Column {
		c, ok := d.Column(name)
		if !ok {
			t.Fatalf("no column %s.%s", d.Name, name)
		}
		return c
	}
	tests := []struct {
		name   string
		column schema.Column
		cell   string
		want   string // the problems as text, "" for none
	}{
		{"required empty", col(schema.Stores, "store_id"), "", "f:2: store_id: required: a value is required"},
		{"optional empty", col(schema.Events, "cost"), "", ""},
		{"integer", col(schema.Profiles, "age"), "28", ""},
		{"not an integer", col(schema.Profiles, "age"), "28歳", `f:2: age: type: expected an integer from -2147483648 to 2147483647, found "28歳"`},
		{"one day", col(schema.Events, "date_time"), "2025-10-03", ""},
		{"period", col(schema.Events, "date_time"), "2025-09-17/2025-10-19", ""},
		{"slashes", col(schema.Events, "date_time"), "2025/10/03", `f:2: date_time: format: expected YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD, found "2025/10/03"`},
		{"no such day", col(schema.Events, "date_time"), "2025-02-30", `f:2: date_time: format: expected YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD, found "2025-02-30"`},
		{"backwards period", col(schema.Events, "date_time"), "2025-10-19/2025-09-17", `f:2: date_time: format: the period "2025-10-19/2025-09-17" ends before it starts`},
		{"timestamp", col(schema.Events, "extracted_at"), "2025-09-24T12:32:59.876957", ""},
		{"timestamp with zone", col(schema.Events, "extracted_at"), "2025-09-24T12:32:59+09:00", ""},
		{"not a timestamp", col(schema.Events, "extracted_at"), "昨日", `f:2: extracted_at: format: expected an ISO 8601 timestamp such as 2025-09-24T12:32:59.876957, found "昨日"`},
		{"flag", col(schema.Stores, "pets_allowed"), "TRUE", ""},
		{"flag in the wrong case", col(schema.Stores, "pets_allowed"), "true", `f:2: pets_allowed: enum: expected "TRUE" or an empty cell, found "true"`},
		{"registration flag", col(schema.Events, "registration_required"), "TRUE", `f:2: registration_required: enum: expected "True" or an empty cell, found "TRUE"`},
		{"enum", col(schema.Stores, "extraction_status"), "failed", `f:2: extraction_status: enum: expected one of success, error, found "failed"`},
		{"invalid UTF-8", col(schema.Stores, "store_name"), "caf\xe9", "f:2: store_name: encoding: not valid UTF-8; save the file as UTF-8"},
		{"JSON syntax", col(schema.Events, "location"), `{"venue": "x",}`, "f:2: location: json: not valid JSON: invalid character '}' looking for beginning of object key string (at byte 15)"},
		{"late-night close", col(schema.Stores, "opening_hours"), `{"monday": [{"open": "18:00", "close": "26:00"}]}`, ""},
		{"JSON schema", col(schema.Stores, "opening_hours"), `{"monday": [{"open": "10:00", "close": "30:00"}]}`,
			`f:2: opening_hours: schema: $.monday.0.close: Does not match pattern '^([01][0-9]|2[0-9]):[0-5][0-9]$' (JSON Schema opening_hours.json)`},
		{"hours as text", col(schema.Stores, "opening_hours"), "平日 10:00〜20:00／土日祝 10:00〜19:00", ""},
		{"hours as text the rule cannot read", col(schema.Stores, "opening_hours"), "11:00〜売り切れ次第終了",
			`f:2: opening_hours: hours: opening hours the hours rule cannot read: "11:00〜売り切れ次第終了"`},
		{"JSON schema type", col(schema.Stores, "parking"), `{"available": true, "capacity": "20", "charge": null}`,
			`f:2: parking: schema: $.capacity: Invalid type. Expected: [integer,null], given: string (JSON Schema parking.json)`},
		{"JSON ok", col(schema.Stores, "irregular_closures"), `[{"type": "holiday", "date": "2025-10-04", "reason": "点検"}]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v.report = &Report{}
			v.cell("f", 2, tt.column, tt.cell)
			var got []string
			for _, p := range v.report.Problems {
				got = append(got, p.String())
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}

func TestJSONVerdictIsCached(t *testing.T) {
	v, err := newValidator(0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := schema.Stores.Column("parking")
	v.cell("f", 2, c, `{"available": "yes"}`)
	v.cell("f", 3, c, `{"available": "yes"}`)
	if len(v.seen) != 1 {
		t.Errorf("identical JSON text was checked %d times, want once", len(v.seen))
	}
	if v.report.Warnings != 2 {
		t.Errorf("problems = %d, want one per line (2)", v.report.Warnings)
	}
}

func TestReportFormats(t *testing.T) {
	t.Chdir(t.TempDir()) // outside any repository: files are named from the working directory
	r := &Report{Max: 11}
	for i := 1; i <= 12; i++ {
		r.add(Problem{File: "in/a,b.csv", Line: i, Column: "c", Rule: RuleRequired, Message: "50% done:\nnext"})
	}
	var b bytes.Buffer
	if err := r.Write(&b, FormatGitHub); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if want := "::error file=in/a%2Cb.csv,line=1,title=ctool validate%3A required::c: 50%25 done:%0Anext"; lines[0] != want {
		t.Errorf("first annotation:\n%s\nwant\n%s", lines[0], want)
	}
	var annotations int
	for _, l := range lines {
		if strings.HasPrefix(l, "::error ") {
			annotations++
		}
	}
	if annotations != 10 {
		t.Errorf("%d annotations, want 10 (GitHub shows no more per step)", annotations)
	}
	if last := lines[len(lines)-1]; last != "ctool validate: 12 problems (10 annotated)" {
		t.Errorf("summary = %q", last)
	}
	b.Reset()
	r.Write(&b, FormatText)
	if !strings.HasSuffix(b.String(), "... 1 more problem not shown (raise --max-errors)\n") {
		t.Errorf("text report does not say how many were left out:\n%s", b.String())
	}
}

func TestValidateLineOfRecordAfterMultilineField(t *testing.T) {
	dir := t.TempDir()
	header := strings.Join(schema.Stores.ColumnNames(), ",")
	row := func(id, menu, status string) string {
		cells := make([]string, len(schema.Stores.Columns))
		for i, c := range schema.Stores.Columns {
			switch c.Name {
			case "store_id":
				cells[i] = id
			case "store_name":
				cells[i] = "店" + id
			case "category":
				cells[i] = "cafe"
			case "menu":
				cells[i] = menu
			case "extraction_status":
				cells[i] = status
			}
		}
		return strings.Join(cells, ",")
	}
	body := header + "\n" + row("S1", "\"ランチ\n\nディナー\"", "success") + "\n" + row("S2", "", "oops") + "\n"
	if err := os.WriteFile(filepath.Join(dir, schema.Stores.SourceFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(dir, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, p := range res.Report.Problems {
		if p.Rule == RuleEnum {
			enum = append(enum, p.String())
		}
	}
	want := filepath.Join(dir, schema.Stores.SourceFile) + `:5: extraction_status: enum: expected one of success, error, found "oops" (record: store_id "S2")`
	if len(enum) != 1 || enum[0] != want {
		t.Errorf("enum problems = %q, want [%q]", enum, want)
	}
}

// A profiles file's name is the input's too: one that is not UTF-8 is an encoding problem, since the
// build records every name and DuckDB holds only UTF-8; any other name is fine, quotes and all.
func TestValidateFileNames(t *testing.T) {
	tests := []struct {
		name string
		want string // the problems as text, "" for none
	}{
		{"narrative_data_\xff.csv", `DIR/narrative_data_\xff.csv:0: -: encoding: the file name is not valid UTF-8; rename the file`},
		{"narrative_data_\xe3\x81.csv", `DIR/narrative_data_\xe3\x81.csv:0: -: encoding: the file name is not valid UTF-8; rename the file`},
		{"narrative_data_'); DROP TABLE profiles; --.csv", ""},
		{"narrative_data_\n::warning::x.csv", ""},
		{"narrative_data_データ.csv", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{schema.Stores.SourceFile, schema.Events.SourceFile, schema.Products.SourceFile, "narrative_data.csv", tt.name} {
				from := name
				if name == tt.name {
					from = "narrative_data.csv"
				}
				b, err := os.ReadFile(filepath.Join("..", "..", "input", from))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Run(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range res.Report.Problems {
				got = append(got, strings.ReplaceAll(p.String(), dir, "DIR"))
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}

// TestUntypedCellsAreWarnings holds what a bad cell costs: a value that cannot be typed is a warning
// whose cell is recorded as unknown, an error only with --strict; what breaks the file stays an error.
func TestUntypedCellsAreWarnings(t *testing.T) {
	col := func(d *schema.Dataset, name string) schema.Column {
		c, ok := d.Column(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		return c
	}
	tests := []struct {
		name    string
		column  schema.Column
		cell    string
		unknown string // the rule that leaves the value unknown; "" for none
		warning bool   // without --strict
	}{
		{"bad integer", col(schema.Profiles, "age"), "28歳", RuleType, true},
		{"bad date", col(schema.Events, "date_time"), "2025/10/03", RuleFormat, true},
		{"bad flag", col(schema.Stores, "pets_allowed"), "yes", RuleEnum, true},
		{"bad JSON", col(schema.Events, "location"), `{"venue": "x",}`, RuleJSON, true},
		{"schema mismatch", col(schema.Stores, "parking"), `{"available": "yes"}`, RuleSchema, true},
		{"hours text the rule cannot read", col(schema.Stores, "opening_hours"), "季節により変動", RuleHours, true},
		{"duplicate JSON key", col(schema.Stores, "parking"), `{"available": true, "available": false}`, "", false},
		{"required and empty", col(schema.Stores, "store_id"), "", "", false},
		{"stray carriage return", col(schema.Stores, "store_name"), "a\rb", "", false},
	}
	for _, strict := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, strict), func(t *testing.T) {
				v, err := newValidator(0)
				if err != nil {
					t.Fatal(err)
				}
				v.strict = strict
				got := v.cell("f", 2, tt.column, tt.cell)
				if got != tt.unknown {
					t.Errorf("unknown = %q, want %q", got, tt.unknown)
				}
				if len(v.report.Problems) == 0 {
					t.Fatal("no problem reported")
				}
				for _, p := range v.report.Problems {
					if want := tt.warning && !strict; p.Warning() != want {
						t.Errorf("%s: warning = %v, want %v", p, p.Warning(), want)
					}
				}
			})
		}
	}
}
