package validation

import (
	"bytes"
	"fmt"
	"io"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
)

// Rule words name what a problem broke. They are part of the product: CI scripts match on them.
const (
	RuleMissingFile  = "missing-file"
	RuleEncoding     = "encoding"
	RuleHeader       = "header"
	RuleRagged       = "ragged"
	RuleRequired     = "required"
	RuleType         = "type"
	RuleFormat       = "format"
	RuleEnum         = "enum"
	RuleJSON         = "json"
	RuleSchema       = "schema"
	RuleDuplicateKey = "duplicate_key" // a key twice in one JSON object
	RuleUnique       = "unique"
	RuleReference    = "reference"
	RuleFile         = "file"      // an entry that is not a regular file, or is over the size limit
	RuleHours        = "hours"     // opening hours written as text that the hours rule cannot read
	RuleInjection    = "injection" // a cell of a public dataset whose text addresses an AI agent (injection.AddressesAI)
)

// Problem is one located validation failure. Line is the physical line the offending cell starts on,
// or the record for a problem with the record as a whole (the header is line 1); it is 0 for a problem
// with the whole file.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  string `json:"column"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Severity is SeverityWarning for a problem that does not fail validation; empty for an error.
	Severity string `json:"severity,omitempty"`
	// Record names the row of a problem in a row by its key (the dataset's Key), where the key's cells
	// could be read; nil otherwise, and always for personal data (profiles).
	Record Record `json:"record,omitempty"`
}

// SeverityWarning marks a problem that is reported but does not fail validation.
const SeverityWarning = "warning"

// Warning reports whether the problem is a warning rather than an error.
func (p Problem) Warning() bool { return p.Severity == SeverityWarning }

// String is the problem's line in the text report. Every part may hold text from the input (file
// names, header cells, JSON keys), so control characters are shown as escapes.
func (p Problem) String() string {
	col := p.Column
	if col == "" {
		col = "-"
	}
	if p.Warning() {
		return fmt.Sprintf("%s:%d: %s: %s: warning: %s", escape.Visible(p.File), p.Line, escape.Visible(col), escape.Visible(p.Rule), escape.Visible(p.described()))
	}
	return fmt.Sprintf("%s:%d: %s: %s: %s", escape.Visible(p.File), p.Line, escape.Visible(col), escape.Visible(p.Rule), escape.Visible(p.described()))
}

// Report collects problems up to a cap while counting all of them.
type Report struct {
	Max      int // 0 keeps every problem
	Count    int // errors
	Warnings int // warnings: reported, but the data is still valid
	Problems []Problem
	// Comparison is what changed since the build validate --against named; nil without --against.
	Comparison *Comparison
	// Files are the files validated, in order; the CI formats list each, with or without problems.
	Files []FileSummary
	// Version is ctool's version (Options.Version), the SARIF driver's.
	Version string

	tally    map[string]map[string]int    // file → rule → problems, counted past the cap
	errTally map[string]map[string]int    // the same, errors only
	skipped  map[string]map[string]string // file → rule → why it did not run (skip)
	// failed, when set, is called once, with the first error (Options.Failed).
	failed func()
}

func (r *Report) add(p Problem) {
	r.count(p)
	if p.Warning() {
		r.Warnings++
	} else {
		r.Count++
		if r.Count == 1 && r.failed != nil {
			r.failed()
		}
	}
	if r.Max == 0 || len(r.Problems) < r.Max {
		r.Problems = append(r.Problems, p)
	}
}

// Valid reports whether no problem was found.
func (r *Report) Valid() bool { return r.Count == 0 }

// Formats a report can be written in.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
	// The CI formats: report_junit.go, report_sarif.go, report_markdown.go.
	FormatJUnit    = "junit"
	FormatSARIF    = "sarif"
	FormatMarkdown = "markdown"
)

// Formats lists the formats, the default first.
var Formats = []string{FormatText, FormatJSON, FormatGitHub, FormatJUnit, FormatSARIF, FormatMarkdown}

// Write renders the report. text: one line per problem; json: one document; github: workflow
// annotations for the first problems, plain lines for the rest.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case FormatText:
		for _, p := range r.Problems {
			fmt.Fprintln(w, plainLine(p.String())) // CI logs read stderr's text for workflow commands too
		}
		writeComparisonText(w, r.Comparison)
		if omitted := r.Count + r.Warnings - len(r.Problems); omitted > 0 {
			fmt.Fprintf(w, "... %d more %s not shown (raise --max-errors)\n", omitted, textout.Plural(omitted, "problem", "problems"))
		}
	case FormatJSON:
		problems, warnings := []Problem{}, []Problem(nil)
		for _, p := range r.Problems {
			if p.Warning() {
				warnings = append(warnings, p)
			} else {
				problems = append(problems, p)
			}
		}
		var buf bytes.Buffer
		if err := textout.JSON(&buf, struct {
			Valid        bool        `json:"valid"`
			ErrorCount   int         `json:"error_count"`
			Shown        int         `json:"shown"`
			Truncated    bool        `json:"truncated"`
			Errors       []Problem   `json:"errors"`
			WarningCount int         `json:"warning_count,omitempty"`
			Warnings     []Problem   `json:"warnings,omitempty"`
			Comparison   *Comparison `json:"comparison,omitempty"`
		}{r.Valid(), r.Count, len(problems), len(problems) < r.Count, problems, r.Warnings, warnings, r.Comparison}); err != nil {
			return err
		}
		_, err := w.Write(escape.JSON(buf.Bytes()))
		return err
	case FormatGitHub:
		r.writeGitHub(w)
	case FormatJUnit:
		return r.writeJUnit(w)
	case FormatSARIF:
		return r.writeSARIF(w)
	case FormatMarkdown:
		return r.WriteMarkdown(w)
	default:
		return fmt.Errorf("unknown format %q (text, json, github, junit, sarif or markdown)", format)
	}
	return nil
}

// Problems counts problems in words: "1 problem", "3 problems".
func Problems(n int) string { return fmt.Sprintf("%d %s", n, textout.Plural(n, "problem", "problems")) }
