package validation

import (
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
)

// markdownFirst is how many problems the markdown summary lists; the rest are counted.
const markdownFirst = 10

// markdownCell is the one place data passes on its way into a Markdown table cell: control characters
// become visible escapes (a line break would end the row), and pipes, backslashes, backticks, emphasis
// and < & (read as HTML) are escaped.
func markdownCell(s string) string {
	s = escape.Visible(s) // control characters, line breaks included, as escapes
	return strings.NewReplacer(
		`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
		"<", "&lt;", ">", "&gt;", "&", "&amp;",
		"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
	).Replace(s)
}

// WriteMarkdown writes a summary for people: the verdict, a row per dataset (rows, and with --against
// what was added, removed and changed, then problems by rule), and the first problems.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## ctool validate\n\n")
	switch {
	case !r.Valid():
		fmt.Fprintf(&b, "**Invalid**: %s", errorsWord(r.Count))
	default:
		b.WriteString("**Valid**")
	}
	if r.Warnings > 0 {
		fmt.Fprintf(&b, ", %d %s", r.Warnings, textout.Plural(r.Warnings, "warning", "warnings"))
	}
	if r.Comparison != nil {
		fmt.Fprintf(&b, "; compared with %s", markdownCell(r.Comparison.Against))
	}
	b.WriteString(".\n\n")

	changes := map[string]DatasetChange{}
	if r.Comparison != nil {
		for _, ch := range r.Comparison.Datasets {
			changes[ch.Dataset] = ch
		}
	}
	b.WriteString("| dataset | rows | added | removed | changed | problems |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, d := range schema.All() {
		rows, byRule := 0, map[string]int{}
		for _, f := range r.Files {
			if datasetOf(f.Path) == d {
				rows += f.Rows
			}
		}
		for _, file := range r.problemFiles() {
			if datasetOf(file) == d {
				for rule, n := range r.tally[file] {
					byRule[rule] += n
				}
			}
		}
		var problems []string
		for _, rule := range Rules() {
			if n := byRule[rule.Rule]; n > 0 {
				problems = append(problems, fmt.Sprintf("%s %d", rule.Rule, n))
			}
		}
		if problems == nil {
			problems = []string{"none"}
		}
		added, removed, changed := "–", "–", "–"
		if ch, ok := changes[d.Name]; ok && ch.Compared {
			added, removed, changed = fmt.Sprint(ch.Added), fmt.Sprint(ch.Removed), fmt.Sprint(ch.Changed)
			if len(ch.ChangedColumns) > 0 {
				var cols []string
				for _, cc := range ch.ChangedColumns {
					cols = append(cols, fmt.Sprintf("%s %d", cc.Column, cc.Rows))
				}
				changed += " (" + strings.Join(cols, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", d.Name, rows, added, removed, markdownCell(changed), markdownCell(strings.Join(problems, ", ")))
	}
	if r.Comparison != nil {
		for _, ch := range r.Comparison.Datasets {
			var notes []string
			if !ch.Compared {
				notes = append(notes, "not compared: its files have problems")
			}
			if len(ch.ColumnsAdded) > 0 {
				notes = append(notes, "columns added: "+strings.Join(ch.ColumnsAdded, ", "))
			}
			if len(ch.ColumnsRemoved) > 0 {
				notes = append(notes, "columns removed: "+strings.Join(ch.ColumnsRemoved, ", "))
			}
			if notes != nil {
				fmt.Fprintf(&b, "\n%s: %s.\n", ch.Dataset, markdownCell(strings.Join(notes, "; ")))
			}
		}
	}

	if len(r.Problems) > 0 {
		total := r.Count + r.Warnings
		shown := min(len(r.Problems), markdownFirst)
		if shown == total {
			b.WriteString("\n### Problems\n\n")
		} else {
			fmt.Fprintf(&b, "\n### The first %d of %s\n\n", shown, Problems(total))
		}
		b.WriteString("| file | line | column | rule | message |\n| --- | ---: | --- | --- | --- |\n")
		for _, p := range r.Problems[:shown] {
			rule := p.Rule
			if p.Warning() {
				rule += " (warning)"
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", markdownCell(p.File), p.Line, markdownCell(p.Column), rule, markdownCell(p.described()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func errorsWord(n int) string { return fmt.Sprintf("%d %s", n, textout.Plural(n, "error", "errors")) }
