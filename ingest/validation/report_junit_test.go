package validation

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
	"github.com/rogpeppe/go-internal/txtar"
)

// junitDoc is a JUnit report as the common JUnit XML schema has it: testsuites of testsuites of
// testcases, each testcase passed (empty, or system-out alone), failed, errored or skipped.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    *int     `xml:"tests,attr"`
	Failures *int     `xml:"failures,attr"`
	Errors   *int     `xml:"errors,attr"`
	Skipped  *int     `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    *int   `xml:"tests,attr"`
		Failures *int   `xml:"failures,attr"`
		Errors   *int   `xml:"errors,attr"`
		Skipped  *int   `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Failure   []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error   []struct{} `xml:"error"`
			Skipped []struct {
				Message *string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// outcome is a testcase's: failed, errored, skipped (with its message) or passed.
func (d *junitDoc) outcomes(suite string) map[string]string {
	out := map[string]string{}
	for _, s := range d.Suites {
		if s.Name != suite {
			continue
		}
		for _, c := range s.Cases {
			switch {
			case len(c.Failure) > 0:
				out[c.Name] = "failed"
			case len(c.Error) > 0:
				out[c.Name] = "errored"
			case len(c.Skipped) > 0:
				out[c.Name] = "skipped: " + *c.Skipped[0].Message
			default:
				out[c.Name] = "passed"
			}
		}
	}
	return out
}

// checkJUnitCounts parses a JUnit report and checks it as the JUnit XML schema reads it: every count
// attribute is there and is the count of its elements (tests of testcases, failures, errors and skipped
// of those children), the root's the sum of its suites', each testcase named with its classname and
// one outcome at most, each skipped with its message.
func checkJUnitCounts(t *testing.T, data []byte) *junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, data)
	}
	if doc.Tests == nil || doc.Failures == nil || doc.Errors == nil || doc.Skipped == nil {
		t.Fatalf("testsuites lacks a count (tests, failures, errors, skipped):\n%.300s", data)
	}
	var tests, failures, errors, skipped int
	for _, s := range doc.Suites {
		if s.Name == "" || s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Skipped == nil {
			t.Fatalf("testsuite %q lacks its name or a count", s.Name)
		}
		var f, e, sk int
		for _, c := range s.Cases {
			if c.Name == "" || c.ClassName != s.Name {
				t.Errorf("%s: testcase %q of class %q", s.Name, c.Name, c.ClassName)
			}
			if n := len(c.Failure) + len(c.Error) + len(c.Skipped); n > 1 {
				t.Errorf("%s: testcase %s has %d outcomes", s.Name, c.Name, n)
			}
			for _, sc := range c.Skipped {
				if sc.Message == nil || *sc.Message == "" {
					t.Errorf("%s: testcase %s skipped without a message", s.Name, c.Name)
				}
			}
			f, e, sk = f+len(c.Failure), e+len(c.Error), sk+len(c.Skipped)
		}
		if *s.Tests != len(s.Cases) || *s.Failures != f || *s.Errors != e || *s.Skipped != sk {
			t.Errorf("%s: tests=%d failures=%d errors=%d skipped=%d, but it holds %d testcases, %d failures, %d errors, %d skipped",
				s.Name, *s.Tests, *s.Failures, *s.Errors, *s.Skipped, len(s.Cases), f, e, sk)
		}
		tests, failures, errors, skipped = tests+*s.Tests, failures+*s.Failures, errors+*s.Errors, skipped+*s.Skipped
	}
	if *doc.Tests != tests || *doc.Failures != failures || *doc.Errors != errors || *doc.Skipped != skipped {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d skipped=%d, its suites add up to %d, %d, %d, %d",
			*doc.Tests, *doc.Failures, *doc.Errors, *doc.Skipped, tests, failures, errors, skipped)
	}
	return &doc
}

// sampleInput copies the repository's sample input to a new directory, each file through edit (which
// may return it changed).
func sampleInput(t *testing.T, edit func(name, text string) string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../../input")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("../../input", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if edit != nil {
			text = edit(e.Name(), text)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func junitOf(t *testing.T, res *Result) *junitDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := res.Report.Write(&buf, FormatJUnit); err != nil {
		t.Fatal(err)
	}
	return checkJUnitCounts(t, buf.Bytes())
}

// The cases: a products file whose header cannot be read lists reference skipped, and unique
// and json, which products do not have, not at all; profiles list neither upcoming nor venue; only
// the stores file lists still-referenced; a rule that ran and found nothing passes.
func TestJUnitListsTheRulesThatApply(t *testing.T) {
	dir := sampleInput(t, func(name, text string) string {
		if name == schema.Products.SourceFile {
			return strings.Replace(text, "product_description,tag\n", "product_description,tags\n", 1)
		}
		return text
	})
	res, err := Run(dir, Options{Contracts: &Contracts{Today: "2025-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := junitOf(t, res)
	products := doc.outcomes(filepath.Join(dir, schema.Products.SourceFile))
	if products[RuleHeader] != "failed" || !strings.HasPrefix(products[RuleReference], "skipped: not run: the header") {
		t.Errorf("products: header %q, reference %q; want failed, and skipped for the header", products[RuleHeader], products[RuleReference])
	}
	for _, rule := range []string{RuleUnique, RuleJSON, RuleVenue, RuleHours, schema.ContractReferenced, schema.ContractUpcoming} {
		if o, ok := products[rule]; ok {
			t.Errorf("products lists %s (%s), which no products file has", rule, o)
		}
	}
	if products[RuleRequired] == "passed" || products[RuleEncoding] != "passed" || products[RuleFile] != "passed" {
		t.Errorf("products: required %q (not run), encoding %q, file %q (ran)", products[RuleRequired], products[RuleEncoding], products[RuleFile])
	}
	profiles := doc.outcomes(filepath.Join(dir, "narrative_data.csv"))
	for _, rule := range []string{schema.ContractUpcoming, RuleVenue, RuleInjection, schema.ContractReferenced} {
		if o, ok := profiles[rule]; ok {
			t.Errorf("profiles list %s (%s)", rule, o)
		}
	}
	if profiles[RuleReference] != "passed" || profiles[RuleType] != "passed" || !strings.Contains(profiles[schema.ContractRemoved], "--against") {
		t.Errorf("profiles: reference %q, type %q, removed %q", profiles[RuleReference], profiles[RuleType], profiles[schema.ContractRemoved])
	}
	stores := doc.outcomes(filepath.Join(dir, schema.Stores.SourceFile))
	if !strings.Contains(stores[schema.ContractReferenced], "--against") || stores[RuleUnique] != "passed" {
		t.Errorf("stores: still-referenced %q, unique %q", stores[schema.ContractReferenced], stores[RuleUnique])
	}
	events := doc.outcomes(filepath.Join(dir, schema.Events.SourceFile))
	if events[schema.ContractUpcoming] != "passed" || events[RuleVenue] != "passed" {
		t.Errorf("events: upcoming %q, venue %q", events[schema.ContractUpcoming], events[RuleVenue])
	}
}

// Without a readable stores file, nothing can be looked up in it: reference and venue are skipped, and
// a missing file's rules are skipped too.
func TestJUnitSkipsWhatNeedsTheStores(t *testing.T) {
	dir := sampleInput(t, nil)
	if err := os.Remove(filepath.Join(dir, schema.Stores.SourceFile)); err != nil {
		t.Fatal(err)
	}
	res, err := Run(dir, Options{Contracts: &Contracts{Today: "2025-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := junitOf(t, res)
	products := doc.outcomes(filepath.Join(dir, schema.Products.SourceFile))
	events := doc.outcomes(filepath.Join(dir, schema.Events.SourceFile))
	if !strings.Contains(products[RuleReference], "stores file") || !strings.Contains(events[RuleVenue], "stores file") {
		t.Errorf("products reference %q, events venue %q: want skipped for the stores file", products[RuleReference], events[RuleVenue])
	}
	stores := doc.outcomes(filepath.Join(dir, schema.Stores.SourceFile))
	if stores[RuleMissingFile] != "failed" || stores[RuleUnique] != "skipped: not run: the file is missing" {
		t.Errorf("the missing stores file: missing-file %q, unique %q", stores[RuleMissingFile], stores[RuleUnique])
	}
}

// fakePrevious is a previous build that had every dataset and lost one store that products still
// name.
type fakePrevious struct{}

func (fakePrevious) Record(*File, []string) {}
func (fakePrevious) Close()                 {}
func (fakePrevious) Compare(broken map[*schema.Dataset]bool) (*Comparison, []Referenced, error) {
	c := &Comparison{Against: "prev.duckdb"}
	for _, d := range schema.All() {
		c.Datasets = append(c.Datasets, DatasetChange{Dataset: d.Name, Compared: !broken[d], Rows: 10, WasRows: 10})
	}
	return c, []Referenced{{Dataset: schema.Stores, Key: "STR-GONE", By: []Referrer{{Dataset: "products", Rows: 2}}}}, nil
}

// still-referenced fails on the stores file, whose key went, and products, which still name it, do
// not list it as passed.
func TestJUnitStillReferenced(t *testing.T) {
	dir := sampleInput(t, nil)
	res, err := Run(dir, Options{Contracts: &Contracts{Today: "2025-01-01", Against: "prev.duckdb", MaxRemoved: 0.1},
		OpenPrevious: func(string) Previous { return fakePrevious{} }})
	if err != nil {
		t.Fatal(err)
	}
	doc := junitOf(t, res)
	stores := doc.outcomes(filepath.Join(dir, schema.Stores.SourceFile))
	products := doc.outcomes(filepath.Join(dir, schema.Products.SourceFile))
	if stores[schema.ContractReferenced] != "failed" || stores[schema.ContractRemoved] != "passed" {
		t.Errorf("stores: still-referenced %q, removed %q", stores[schema.ContractReferenced], stores[schema.ContractRemoved])
	}
	if o, ok := products[schema.ContractReferenced]; ok {
		t.Errorf("products list still-referenced (%s)", o)
	}
}

// Every JUnit report among the end-to-end goldens holds together as the JUnit XML schema reads it.
func TestJUnitGoldensCount(t *testing.T) {
	files, err := filepath.Glob("../../testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range files {
		a, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if bytes.Contains(f.Data, []byte("<testsuites")) {
				t.Run(filepath.Base(path)+"/"+f.Name, func(t *testing.T) { checkJUnitCounts(t, f.Data) })
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no JUnit report among the goldens")
	}
}
