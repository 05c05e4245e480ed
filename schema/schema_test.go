package schema

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// sampleDir holds the sample data the schema must describe.
const sampleDir = "../input"

// compileDraft7 compiles a JSON Schema as draft-07, checking it against the draft-07 meta-schema first,
// so a schema that gojsonschema would silently read under another draft fails here.
func compileDraft7(t *testing.T, name, text string) *gojsonschema.Schema {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	if got := doc["$schema"]; got != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("%s: $schema is %v, want the draft-07 URI", name, got)
	}
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	sl.Validate = true
	s, err := sl.Compile(gojsonschema.NewStringLoader(text))
	if err != nil {
		t.Fatalf("%s does not compile as draft-07: %v", name, err)
	}
	return s
}

// schemaFiles lists the JSON Schema files on disk (not through the embed, so a file the embed pattern
// missed is still checked).
func schemaFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("jsonschema")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no files under schema/jsonschema")
	}
	return names
}

func TestJSONSchemaFilesCompile(t *testing.T) {
	for _, name := range schemaFiles(t) {
		t.Run(name, func(t *testing.T) {
			if filepath.Ext(name) != ".json" {
				t.Fatalf("%s: only .json files belong under schema/jsonschema", name)
			}
			b, err := os.ReadFile(filepath.Join("jsonschema", name))
			if err != nil {
				t.Fatal(err)
			}
			compileDraft7(t, name, string(b))
			// The embedded copy is the one validation and the help read: it must be the same file.
			embedded, err := JSONSchema(name)
			if err != nil {
				t.Fatalf("not embedded: %v", err)
			}
			if embedded != string(b) {
				t.Errorf("embedded %s differs from the file on disk", name)
			}
			var doc struct {
				Description string `json:"description"`
			}
			json.Unmarshal(b, &doc)
			if doc.Description == "" {
				t.Errorf("%s has no description; the help prints it for the agent", name)
			}
		})
	}
}

func TestEveryJSONColumnNamesASchemaFile(t *testing.T) {
	onDisk := map[string]bool{}
	for _, name := range schemaFiles(t) {
		onDisk[name] = true
	}
	used := map[string]bool{}
	for _, d := range All() {
		for _, c := range d.Columns {
			switch {
			case c.Kind == JSON && c.SchemaFile == "":
				t.Errorf("%s.%s is a JSON column without a SchemaFile", d.Name, c.Name)
			case c.Kind == JSON && !onDisk[c.SchemaFile]:
				t.Errorf("%s.%s names %q, which is not a file under schema/jsonschema", d.Name, c.Name, c.SchemaFile)
			case c.Kind != JSON && c.SchemaFile != "":
				t.Errorf("%s.%s has a SchemaFile but is of kind %s", d.Name, c.Name, c.Kind)
			}
			used[c.SchemaFile] = true
		}
	}
	for name := range onDisk {
		if !used[name] {
			t.Errorf("schema/jsonschema/%s is not used by any column", name)
		}
	}
}

// readSample reads one CSV file of the sample data: its header and records.
func readSample(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	header, err := r.Read()
	if err != nil {
		t.Fatalf("%s: header: %v", path, err)
	}
	var records [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		records = append(records, rec)
	}
	return header, records
}

func TestJSONSchemasAcceptSampleData(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sampleDir, "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample CSV files in %s (%v)", sampleDir, err)
	}
	compiled := map[string]*gojsonschema.Schema{}
	checked := map[string]int{} // dataset.column → cells validated
	for _, path := range files {
		base := filepath.Base(path)
		var d *Dataset
		for _, cand := range All() {
			if cand.MatchesFile(base) {
				if d != nil {
					t.Errorf("%s matches both %s and %s", base, d.Name, cand.Name)
				}
				d = cand
			}
		}
		if d == nil {
			t.Errorf("%s belongs to no dataset", base)
			continue
		}
		header, records := readSample(t, path)
		if !slicesEqual(header, d.ColumnNames()) {
			t.Errorf("%s: header %v, want %v", base, header, d.ColumnNames())
		}
		for i, name := range header {
			c, ok := d.Column(name)
			if !ok || c.Kind != JSON {
				continue
			}
			s := compiled[c.SchemaFile]
			if s == nil {
				text, err := JSONSchema(c.SchemaFile)
				if err != nil {
					t.Fatal(err)
				}
				s = compileDraft7(t, c.SchemaFile, text)
				compiled[c.SchemaFile] = s
			}
			for n, rec := range records {
				if i >= len(rec) || rec[i] == "" {
					continue
				}
				res, err := s.Validate(gojsonschema.NewStringLoader(rec[i]))
				if err != nil {
					t.Errorf("%s record %d, %s: not JSON: %v\n%s", base, n+1, name, err, rec[i])
					continue
				}
				if !res.Valid() {
					var msgs []string
					for _, e := range res.Errors() {
						msgs = append(msgs, e.String())
					}
					t.Errorf("%s record %d, %s is rejected by %s: %s\n%s", base, n+1, name, c.SchemaFile, strings.Join(msgs, "; "), rec[i])
				}
				checked[d.Name+"."+name]++
			}
		}
	}
	// Every JSON column of a public dataset has sample cells, so the check above is not vacuous.
	for _, d := range Public() {
		for _, c := range d.Columns {
			if c.Kind == JSON && checked[d.Name+"."+c.Name] == 0 {
				t.Errorf("no sample cell of %s.%s was validated", d.Name, c.Name)
			}
		}
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestColumnsAreUniqueAndConsistent(t *testing.T) {
	relations := map[string]string{}
	for _, d := range All() {
		seen := map[string]bool{}
		for _, c := range d.Columns {
			if c.Name == "" {
				t.Errorf("%s has a column without a name", d.Name)
			}
			if seen[c.Name] {
				t.Errorf("%s: column %q appears twice", d.Name, c.Name)
			}
			seen[c.Name] = true
			if c.Description == "" {
				t.Errorf("%s.%s has no description", d.Name, c.Name)
			}
			switch c.Kind {
			case Flag:
				if c.FlagValue == "" {
					t.Errorf("%s.%s is a flag without a FlagValue", d.Name, c.Name)
				}
			case Enum:
				if len(c.Values) == 0 {
					t.Errorf("%s.%s is an enum without Values", d.Name, c.Name)
				}
			case Text, Integer, DateRange, Timestamp, JSON:
			default:
				t.Errorf("%s.%s has unknown kind %q", d.Name, c.Name, c.Kind)
			}
		}
		if d.PrimaryKey != "" && !seen[d.PrimaryKey] {
			t.Errorf("%s: primary key %q is not a column", d.Name, d.PrimaryKey)
		}
		for _, v := range d.Views {
			vseen := map[string]bool{}
			for _, c := range v.Columns {
				if vseen[c.Name] {
					t.Errorf("view %s: column %q appears twice", v.Name, c.Name)
				}
				vseen[c.Name] = true
			}
			if v.Extends != "" && v.Extends != d.Table {
				t.Errorf("view %s extends %q, not its dataset's table %q", v.Name, v.Extends, d.Table)
			}
		}
		for _, r := range d.Relations() {
			if other, dup := relations[r]; dup {
				t.Errorf("relation %q belongs to both %s and %s", r, other, d.Name)
			}
			relations[r] = d.Name
		}
	}
}

func TestReferencesPointAtExistingColumns(t *testing.T) {
	n := 0
	for _, d := range All() {
		for _, r := range d.References {
			n++
			if _, ok := d.Column(r.Column); !ok {
				t.Errorf("%s: reference from unknown column %q", d.Name, r.Column)
			}
			target, err := ByName(r.Dataset)
			if err != nil {
				t.Errorf("%s.%s refers to unknown dataset %q", d.Name, r.Column, r.Dataset)
				continue
			}
			if _, ok := target.Column(r.Key); !ok {
				t.Errorf("%s.%s refers to %s.%s, which is not a column", d.Name, r.Column, r.Dataset, r.Key)
			}
			if target.PrimaryKey != r.Key {
				t.Errorf("%s.%s refers to %s.%s, which is not its primary key (%q)", d.Name, r.Column, r.Dataset, r.Key, target.PrimaryKey)
			}
		}
	}
	if n == 0 {
		t.Error("no references at all: products.store_id and profiles.primary_store_id should refer to stores")
	}
}

// dataCount matches the ways a text can state how much data there is, which the seeds forbid in what
// the agent reads: the data grows, the text would not.
var dataCount = regexp.MustCompile(`(\d[\d,]*)\s*(件|店舗|ユーザー)|全\s*\d[\d,]*|約\s*\d`)

// dataCounts returns the data counts in text. allowedCounts are numbers that may precede 件 because
// they are rules, not data (the row cap, and "0件なら").
func dataCounts(text string, allowedCounts ...int) []string {
	var found []string
	for _, m := range dataCount.FindAllStringSubmatch(text, -1) {
		if m[2] == "件" {
			n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			if err == nil && containsInt(allowedCounts, n) {
				continue
			}
		}
		found = append(found, m[0])
	}
	return found
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

func TestDataCountDetector(t *testing.T) {
	for _, text := range []string{"現在20店舗のデータ", "約270件の商品", "全31件", "3ユーザー分", "全 20 店舗", "1,000件"} {
		if len(dataCounts(text)) == 0 {
			t.Errorf("dataCounts(%q) found nothing", text)
		}
	}
	for _, text := range []string{"最大10件です", "0件なら", "1,000円の商品", "2025年10月", "LIMIT 10", "対話中のユーザー1人", "1営業時間帯1行"} {
		if got := dataCounts(text, RowCap, 0); len(got) != 0 {
			t.Errorf("dataCounts(%q) = %q, want nothing", text, got)
		}
	}
}

// describedTexts lists every text of a dataset's definition the agent reads, with where it is.
func describedTexts(d *Dataset) map[string]string {
	texts := map[string]string{
		d.Name + ".Summary":     d.Summary,
		d.Name + ".WhenToUse":   d.WhenToUse,
		d.Name + ".ZeroMessage": d.ZeroMessage,
	}
	for _, c := range d.Columns {
		texts[d.Name+"."+c.Name] = c.Description
	}
	for _, v := range d.Views {
		texts[v.Name] = v.Description
		for _, c := range v.Columns {
			texts[v.Name+"."+c.Name] = c.Description
		}
	}
	for i, e := range d.Examples {
		texts[d.Name+".Examples["+strconv.Itoa(i)+"]"] = e.Question
	}
	return texts
}

func TestDescriptionsHoldNoDataCounts(t *testing.T) {
	for _, d := range All() {
		texts := describedTexts(d)
		keys := make([]string, 0, len(texts))
		for k := range texts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if got := dataCounts(texts[k]); len(got) > 0 {
				t.Errorf("%s states a data count %q: %s", k, got, texts[k])
			}
		}
	}
	for _, name := range schemaFiles(t) {
		text, err := JSONSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := dataCounts(text); len(got) > 0 {
			t.Errorf("jsonschema/%s states a data count %q", name, got)
		}
	}
}
