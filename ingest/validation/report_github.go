package validation

import (
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
)

// githubAnnotationLimit is how many annotations GitHub shows for one step; the rest print as plain lines.
const githubAnnotationLimit = 10

// GitHub reads every line of a step's output for workflow commands (a line starting with "::"), so a
// report in --format github escapes what it quotes on every line: the annotations' message and
// properties by the workflow-command rules (CR and LF as %0D and %0A), then every other control
// character made visible (no separator is left to start a line), and the plain lines past the
// annotation limit likewise.
var (
	ghDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// ghData escapes a workflow command's message.
func ghData(s string) string { return escape.Visible(ghDataEscaper.Replace(s)) }

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string { return escape.Visible(ghPropertyEscaper.Replace(s)) }

// writeGitHub writes workflow annotations for the first problems, plain lines for the rest, and a count.
// An annotation names the line the text report names, and none for a problem of the whole file. Its
// file is relative to the repository root, as GitHub reads it, whatever the working directory (the
// root found as for SARIF).
func (r *Report) writeGitHub(w io.Writer) {
	root, _ := repoRoot()
	for i, p := range r.Problems {
		if i < githubAnnotationLimit {
			msg := p.described()
			if p.Column != "" {
				msg = p.Column + ": " + msg
			}
			level := "error"
			if p.Warning() {
				level = "warning"
			}
			// A problem of the whole file (line 0 in the text report) is annotated on the file, with no
			// line: GitHub shows it on the file rather than on its first line.
			line := ""
			if p.Line > 0 {
				line = fmt.Sprintf(",line=%d", p.Line)
			}
			fmt.Fprintf(w, "::%s file=%s%s,title=%s::%s\n", level, ghProperty(relativeTo(p.File, root)), line,
				ghProperty("ctool validate: "+p.Rule), ghData(msg))
			continue
		}
		fmt.Fprintln(w, plainLine(p.String()))
	}
	if total := r.Count + r.Warnings; total > 0 {
		fmt.Fprintf(w, "ctool validate: %s (%d annotated)\n", Problems(total), min(total, len(r.Problems), githubAnnotationLimit))
	}
}

// plainLine makes a line of the report that is not a workflow command safe to print where GitHub reads
// commands: control characters are already escaped (Problem.String), and a line that would start with
// "::" (after blanks, as the runner trims them) gets its first colon escaped.
func plainLine(s string) string {
	s = escape.Visible(s)
	trimmed := strings.TrimLeft(s, " ")
	if strings.HasPrefix(trimmed, "::") {
		return s[:len(s)-len(trimmed)] + `\x3a` + trimmed[1:]
	}
	return s
}
