package validation

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// hostileReport holds data that every format must escape: markup, XML's CDATA end, a control
// character, table pipes, backticks, line breaks and a file name with a comma and a space.
func hostileReport() *Report {
	r := &Report{Max: 3}
	r.Files = []FileSummary{{Path: "in/a, b.csv", Rows: 2}, {Path: "in/events.csv", Rows: 1}}
	r.add(Problem{File: "in/a, b.csv", Line: 2, Column: "store_id", Rule: RuleReference, Message: "\"<b>]]>&\x01|`x`\nnext\" is not a stores.store_id"})
	r.add(Problem{File: "in/a, b.csv", Line: 3, Column: "store_id", Rule: RuleReference, Message: "second"})
	r.add(Problem{File: "in/events.csv", Column: "date_time", Rule: "upcoming", Severity: SeverityWarning, Message: "nothing upcoming"})
	r.add(Problem{File: "in/a, b.csv", Line: 4, Rule: RuleRagged, Message: "past the cap"})
	r.add(Problem{File: "in/missing.csv", Rule: RuleMissingFile, Message: "missing"})
	return r
}

// TestJUnitParses reads the JUnit report back with encoding/xml: the hostile message survives
// escaping, its control characters shown as escapes as in the text report; counts add up, warnings pass.
func TestJUnitParses(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().Write(&buf, FormatJUnit); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	checkJUnitCounts(t, buf.Bytes())
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if want := []string{"in/a, b.csv", "in/events.csv", "in/missing.csv"}; !slices.Equal(names, want) {
		t.Errorf("suites %q, want %q", names, want)
	}
	// A file of no dataset lists the rules it broke; events.csv every rule of events; a missing file
	// its missing-file failing and every other rule skipped.
	events := 0
	for _, rule := range Rules() {
		if appliesTo(rule.Rule, schema.Events, "events.csv") {
			events++
		}
	}
	if got := []int{doc.Suites[0].Tests, doc.Suites[1].Tests}; got[0] != 2 || got[1] != events {
		t.Errorf("tests %v, want [2 %d]", got, events)
	}
	if doc.Failures != 3 {
		t.Errorf("testsuites: %d failures; want 3 (reference, ragged, missing-file)", doc.Failures)
	}
	for _, c := range doc.Suites[0].Cases {
		switch c.Name {
		case RuleReference:
			if c.Failure == nil || c.Failure.Type != RuleReference || c.Failure.Message != "reference: 2 problems" {
				t.Fatalf("reference case: %+v", c.Failure)
			}
			want := "in/a, b.csv:2: store_id: reference: \"<b>]]>&\\x01|`x`\\nnext\" is not a stores.store_id\nin/a, b.csv:3: store_id: reference: second"
			if c.Failure.Text != want {
				t.Errorf("failure text\n got %q\nwant %q", c.Failure.Text, want)
			}
		case RuleRagged:
			if c.Failure == nil || !strings.Contains(c.Failure.Text, "1 more not shown") {
				t.Errorf("ragged past the cap: %+v", c.Failure)
			}
		default:
			if c.Failure != nil {
				t.Errorf("%s failed: %+v", c.Name, c.Failure)
			}
		}
	}
	for _, c := range doc.Suites[1].Cases {
		if c.Name == "upcoming" && (c.Failure != nil || !strings.Contains(c.SystemOut, "warning: nothing upcoming")) {
			t.Errorf("a warning passes with its line in system-out: %+v", c)
		}
	}
}

// TestSARIFShape checks the SARIF report against the parts of the 2.1.0 schema code scanning needs.
func TestSARIFShape(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().Write(&buf, FormatSARIF); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log["version"] != "2.1.0" || !strings.Contains(log["$schema"].(string), "sarif-2.1.0") {
		t.Errorf("version %v, $schema %v", log["version"], log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] == "" {
		t.Error("driver without a name")
	}
	var ruleIDs []string
	for _, r := range driver["rules"].([]any) {
		rule := r.(map[string]any)
		ruleIDs = append(ruleIDs, rule["id"].(string))
		if rule["shortDescription"].(map[string]any)["text"] == "" {
			t.Errorf("rule %s undescribed", rule["id"])
		}
		if level := rule["defaultConfiguration"].(map[string]any)["level"]; level != "error" && level != "warning" {
			t.Errorf("rule %s level %v", rule["id"], level)
		}
	}
	results := run["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("%d results, want the 3 kept", len(results))
	}
	levels := []string{"error", "error", "warning"}
	for i, r := range results {
		res := r.(map[string]any)
		idx := int(res["ruleIndex"].(float64))
		if ruleIDs[idx] != res["ruleId"] {
			t.Errorf("result %d: ruleIndex %d is %s, ruleId %v", i, idx, ruleIDs[idx], res["ruleId"])
		}
		if res["level"] != levels[i] {
			t.Errorf("result %d: level %v, want %s", i, res["level"], levels[i])
		}
		if res["message"].(map[string]any)["text"] == "" {
			t.Errorf("result %d: no message", i)
		}
		loc := res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
		uri := loc["artifactLocation"].(map[string]any)["uri"].(string)
		if strings.HasPrefix(uri, "/") || strings.Contains(uri, " ") || strings.Contains(uri, ",") {
			t.Errorf("result %d: uri %q is not a relative URI reference", i, uri)
		}
		region := loc["region"].(map[string]any)
		if region["startLine"].(float64) < 1 || region["startColumn"].(float64) < 1 {
			t.Errorf("result %d: region %v", i, region)
		}
	}
	first := results[0].(map[string]any)["message"].(map[string]any)["text"]
	if want := "store_id: \"<b>]]>&\x01|`x`\nnext\" is not a stores.store_id"; first != want {
		t.Errorf("message %q, want %q", first, want)
	}
}

func TestSARIFURI(t *testing.T) {
	tests := []struct{ file, root, want string }{
		{"input/events.csv", "", "input/events.csv"},
		{"/repo/input/filtered_store_data_カテゴリー情報あり.csv", "/repo", "input/filtered_store_data_%E3%82%AB%E3%83%86%E3%82%B4%E3%83%AA%E3%83%BC%E6%83%85%E5%A0%B1%E3%81%82%E3%82%8A.csv"},
		{"/repo/in/a, b#1.csv", "/repo", "in/a%2C%20b%231.csv"},
	}
	for _, tt := range tests {
		if got := sarifURI(tt.file, tt.root); got != tt.want {
			t.Errorf("sarifURI(%q, %q) = %q, want %q", tt.file, tt.root, got, tt.want)
		}
	}
}

func TestMarkdownCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain 麻布台", "plain 麻布台"},
		{"a|b", `a\|b`},
		{"two\nlines\r\nthree", `two\\nlines\\r\\nthree`}, // escaped, then the backslash itself
		{"esc\x1b[31m", `esc\\x1b\[31m`},
		{"`code`", "\\`code\\`"},
		{"<script>&", "&lt;script&gt;&amp;"},
		{`back\slash`, `back\\slash`},
		{"store_id *x* [l](u)", `store\_id \*x\* \[l\](u)`},
	}
	for _, tt := range tests {
		if got := markdownCell(tt.in); got != tt.want {
			t.Errorf("markdownCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A hostile message stays in its table row: the row is one line with the table's six pipes.
	var buf bytes.Buffer
	if err := hostileReport().Write(&buf, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "| in/a, b.csv | 2 |") {
			if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 6 {
				t.Errorf("row has %d unescaped pipes: %s", n, line)
			}
			return
		}
	}
	t.Errorf("no row for the hostile problem:\n%s", buf.String())
}
