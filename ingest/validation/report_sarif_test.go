package validation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/xeipuuv/gojsonschema"
)

// sarifSchema is the SARIF that ctool writes, as testdata's schema has it: SARIF 2.1.0's structure of
// the objects ctool uses, with code scanning's requirements on top (a driver version, rules described
// in full with their help and its page). CTOOL_SARIF_SCHEMA may name the standard's own schema
// (sarif-schema-2.1.0.json) to check against it too.
func checkSARIF(t *testing.T, doc []byte) {
	t.Helper()
	schemas := []string{"testdata/sarif-2.1.0-ctool.schema.json"}
	if full := os.Getenv("CTOOL_SARIF_SCHEMA"); full != "" {
		schemas = append(schemas, full)
	}
	for _, path := range schemas {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := gojsonschema.Validate(gojsonschema.NewReferenceLoader("file://"+filepath.ToSlash(abs)), gojsonschema.NewBytesLoader(doc))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, e := range res.Errors() {
			t.Errorf("%s: %s", filepath.Base(path), e)
		}
	}
}

func TestSARIFMatchesTheSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().Write(&buf, FormatSARIF); err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, buf.Bytes())

	// A real run: problems of rows (with their records), of a header and of a whole file, and the
	// comparison in the run's properties.
	dir := sampleInput(t, func(name, text string) string {
		switch name {
		case "events.csv":
			return strings.Replace(text, "2025-09-27/2025-09-28", "2025/09/27", 1)
		case "filtered_product_data.csv":
			return strings.Replace(text, "product_description,tag\n", "product_description,tags\n", 1)
		}
		return text
	})
	res, err := Run(dir, Options{Strict: true, Version: "v1.2.3", Contracts: &Contracts{Today: "2099-01-01", Against: "prev.duckdb", MaxRemoved: 0.1},
		OpenPrevious: func(string) Previous { return fakePrevious{} }})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := res.Report.Write(&buf, FormatSARIF); err != nil {
		t.Fatal(err)
	}
	checkSARIF(t, buf.Bytes())
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Version, InformationURI string }
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct{ Region struct{ StartLine int } }
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if v := log.Runs[0].Tool.Driver.Version; v != "v1.2.3" {
		t.Errorf("driver version %q, want the one passed (v1.2.3)", v)
	}
	rules := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		rules[r.RuleID] = true
	}
	for _, want := range []string{RuleFormat, RuleHeader, "still-referenced"} {
		if !rules[want] {
			t.Errorf("no %s result among %v", want, rules)
		}
	}
}

func TestToolVersion(t *testing.T) {
	if got := toolVersion("v2.0.0"); got != "v2.0.0" {
		t.Errorf("toolVersion(v2.0.0) = %q", got)
	}
	if got := toolVersion(""); got == "" || got == "(devel)" {
		t.Errorf("toolVersion(\"\") = %q, want a version (dev for a build without one)", got)
	}
}

// repoPage maps a documentation URI of the repository's main branch to its file in this checkout.
func repoPage(t *testing.T, uri string) (file, anchor string) {
	t.Helper()
	const prefix = "https://github.com/azabudai/ctool/blob/main/"
	u, err := url.Parse(uri)
	if err != nil || !strings.HasPrefix(uri, prefix) {
		t.Fatalf("%q is not a page of the repository's main branch (%s…)", uri, prefix)
	}
	return filepath.Join("../..", filepath.FromSlash(strings.TrimPrefix(u.Path, "/azabudai/ctool/blob/main/"))), u.Fragment
}

// anchorsOf lists a Markdown page's anchors as GitHub makes them: every heading's slug (lower case,
// punctuation but '-' and '_' dropped, spaces as '-', a repeated slug numbered), and every explicit
// <a id> or <a name>.
func anchorsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	anchors, seen := map[string]bool{}, map[string]int{}
	explicit := regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		for _, m := range explicit.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		anchors[slug] = true
	}
	return anchors
}

// Every rule's helpUri is a section of the repository's docs that exists, and the tool's
// informationUri a page that does.
func TestSARIFHelpURIsExist(t *testing.T) {
	for _, rule := range Rules() {
		if rule.Short == "" || rule.Description == "" || rule.Help == "" {
			t.Errorf("rule %s lacks its short description, description or help", rule.Rule)
		}
		file, anchor := repoPage(t, rule.HelpURI())
		if anchor == "" {
			t.Errorf("rule %s: helpUri %s names no section", rule.Rule, rule.HelpURI())
			continue
		}
		if !anchorsOf(t, file)[anchor] {
			t.Errorf("rule %s: helpUri %s: %s has no heading or anchor %q", rule.Rule, rule.HelpURI(), file, anchor)
		}
	}
	file, anchor := repoPage(t, sarifInformationURI)
	if _, err := os.Stat(file); err != nil {
		t.Errorf("informationUri %s: %v", sarifInformationURI, err)
	}
	if anchor != "" && !anchorsOf(t, file)[anchor] {
		t.Errorf("informationUri %s: no anchor %q", sarifInformationURI, anchor)
	}
}
