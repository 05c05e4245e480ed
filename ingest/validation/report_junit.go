package validation

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
)

// junitData is the one place data passes on its way into JUnit XML: control characters become visible
// escapes (as in the text report), and encoding/xml escapes the markup.
func junitData(s string) string { return escape.Visible(s) }

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	TestCases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one testsuite per file and in it one testcase per rule word that applies to the
// file's dataset (appliesTo): a rule with errors fails, with the count in its message and a line per
// problem (FILE:LINE: COLUMN: RULE: message); a rule with warnings alone passes, their lines in
// system-out; a rule that did not run is skipped with the reason (the file's header could not be
// read, the stores file could not be, no --against, the dataset could not be compared); only a rule
// that ran and found nothing passes bare. No check is an error of its own: errors is always 0.
func (r *Report) writeJUnit(w io.Writer) error {
	doc := junitSuites{Name: "ctool validate"}
	for _, file := range r.problemFiles() {
		suite := junitSuite{Name: junitData(file)}
		kept := r.kept(file)
		d := datasetOf(file)
		for _, rule := range Rules() {
			n := r.tally[file][rule.Rule]
			if n == 0 && !appliesTo(rule.Rule, d, file) {
				continue
			}
			tc := junitCase{Name: rule.Rule, ClassName: junitData(file)}
			var lines []string
			for _, p := range kept {
				if p.Rule == rule.Rule {
					lines = append(lines, junitData(p.String()))
				}
			}
			if omitted := n - len(lines); omitted > 0 {
				lines = append(lines, fmt.Sprintf("... %d more not shown (raise --max-errors)", omitted))
			}
			why := r.skipped[file][rule.Rule]
			if why == "" && rule.Against {
				why = r.notCompared(file)
			}
			switch {
			case r.errTally[file][rule.Rule] > 0:
				tc.Failure = &junitFailure{Message: fmt.Sprintf("%s: %s", rule.Rule, Problems(n)), Type: rule.Rule,
					Text: strings.Join(lines, "\n")}
				suite.Failures++
			case n > 0:
				tc.SystemOut = strings.Join(lines, "\n")
			case why != "":
				tc.Skipped = &junitSkipped{Message: junitData(why)}
				suite.Skipped++
			}
			suite.TestCases = append(suite.TestCases, tc)
		}
		suite.Tests = len(suite.TestCases)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Skipped += suite.Skipped
		doc.Suites = append(doc.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// notCompared says why the contracts against the previous build did not run for file; "" when they did.
func (r *Report) notCompared(file string) string {
	if r.Comparison == nil {
		return "not run: compares with the previous build (validate --against)"
	}
	d := datasetOf(file)
	if d == nil {
		return "not run: the file is none of the datasets"
	}
	for _, ch := range r.Comparison.Datasets {
		if ch.Dataset == d.Name {
			if ch.Compared {
				return ""
			}
			break
		}
	}
	return "not run: " + d.Name + " could not be compared with " + r.Comparison.Against + " (its files have errors, or the build has no such dataset)"
}
