package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/azabudai/ctool/escape"
)

// Rule words name what a problem broke. They are part of the product: CI scripts match on them.
const (
	RuleMissingFile = "missing-file"
	RuleEncoding    = "encoding"
	RuleHeader      = "header"
	RuleRagged      = "ragged"
	RuleRequired    = "required"
	RuleType        = "type"
	RuleFormat      = "format"
	RuleEnum        = "enum"
	RuleJSON        = "json"
	RuleSchema      = "schema"
	RuleUnique      = "unique"
	RuleReference   = "reference"
	RuleFile        = "file" // an entry that is not a regular file, or is over the size limit
)

// Problem is one located validation failure. Line is the physical line where the offending record
// starts (the header is line 1); it is 0 for a problem with the whole file.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  string `json:"column"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is the problem's line in the text report. Every part may hold text from the input (file
// names, header cells, JSON keys), so control characters are shown as escapes.
func (p Problem) String() string {
	col := p.Column
	if col == "" {
		col = "-"
	}
	return fmt.Sprintf("%s:%d: %s: %s: %s", escape.Visible(p.File), p.Line, escape.Visible(col), escape.Visible(p.Rule), escape.Visible(p.Message))
}

// Report collects problems up to a cap while counting all of them.
type Report struct {
	Max      int // 0 keeps every problem
	Count    int
	Problems []Problem
}

func (r *Report) add(p Problem) {
	r.Count++
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
)

// githubAnnotationLimit is how many annotations GitHub shows for one step; the rest print as plain lines.
const githubAnnotationLimit = 10

// Write renders the report. text: one line per problem; json: one document; github: workflow
// annotations for the first problems, plain lines for the rest.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case FormatText:
		for _, p := range r.Problems {
			fmt.Fprintln(w, plainLine(p.String())) // CI logs read stderr's text for workflow commands too
		}
		if omitted := r.Count - len(r.Problems); omitted > 0 {
			noun := "problems"
			if omitted == 1 {
				noun = "problem"
			}
			fmt.Fprintf(w, "... %d more %s not shown (raise --max-errors)\n", omitted, noun)
		}
	case FormatJSON:
		problems := r.Problems
		if problems == nil {
			problems = []Problem{}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Valid      bool      `json:"valid"`
			ErrorCount int       `json:"error_count"`
			Shown      int       `json:"shown"`
			Truncated  bool      `json:"truncated"`
			Errors     []Problem `json:"errors"`
		}{r.Valid(), r.Count, len(problems), len(problems) < r.Count, problems}); err != nil {
			return err
		}
		_, err := w.Write(escape.JSON(buf.Bytes()))
		return err
	case FormatGitHub:
		for i, p := range r.Problems {
			if i < githubAnnotationLimit {
				msg := p.Message
				if p.Column != "" {
					msg = p.Column + ": " + msg
				}
				fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", ghProperty(p.File), max(p.Line, 1),
					ghProperty("ctool validate: "+p.Rule), ghData(msg))
				continue
			}
			fmt.Fprintln(w, plainLine(p.String()))
		}
		if r.Count > 0 {
			fmt.Fprintf(w, "ctool validate: %s (%d annotated)\n", Problems(r.Count), min(r.Count, len(r.Problems), githubAnnotationLimit))
		}
	default:
		return fmt.Errorf("unknown format %q (text, json or github)", format)
	}
	return nil
}

// Problems counts problems in words: "1 problem", "3 problems".
func Problems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}
