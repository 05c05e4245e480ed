package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// displayWidth is how many characters of a cell table and markdown show.
const displayWidth = 60

// writeTable renders a table (or a markdown table) for people: long cells are cut for display only.
// A width above 0 fits the table to a terminal that wide (textout.Fit), or shows it expanded.
func writeTable(out io.Writer, markdown bool, res *query.Result, width int) error {
	count := len(res.Rows)
	note := omittedNote(res)
	switch {
	case count == 0 && res.Truncated:
		_, err := fmt.Fprintf(out, "(0 rows; %s)\n", TruncatedHint(0))
		return err
	case count == 0:
		_, err := fmt.Fprintln(out, res.Dataset.ZeroMessage)
		return err
	}
	opts := []tablewriter.Option{tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoWrap(tw.WrapNone)}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := textout.Table(out, opts...)
	header := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		header[i] = escape.Visible(c.Name)
	}
	var cells [][]string
	for _, values := range res.Rows {
		row := make([]string, len(values))
		for i, v := range values {
			text := cellText(v)
			if v == nil {
				text = "NULL"
			}
			row[i] = shorten(text)
		}
		cells = append(cells, row)
	}
	fit := textout.Fit(header, cells, width)
	if fit.Expanded {
		if err := textout.WriteExpanded(out, header, cells, width); err != nil {
			return err
		}
	} else {
		if fit.Wrapped {
			// Rows that span lines need a line between them to be told apart.
			t.Options(tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
		}
		t.Header(fit.Header)
		for _, row := range fit.Rows {
			if err := t.Append(row); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	footer := fmt.Sprintf("(%d %s", count, textout.Plural(count, "row", "rows"))
	if markdown {
		// A line right under a markdown table would be read as one more row.
		footer = "\n" + footer
	}
	if res.Truncated {
		footer += "; " + TruncatedHint(count)
	}
	if note != "" {
		footer += "; " + note
	}
	_, err := fmt.Fprintln(out, footer+")")
	return err
}

// shorten puts a cell on one line, shows its control characters as escapes (no ESC sequence reaches
// the terminal) and cuts it to displayWidth characters.
func shorten(s string) string {
	s = escape.Visible(strings.Join(strings.Fields(s), " "))
	if s == "" {
		return s
	}
	if utf8.RuneCountInString(s) <= displayWidth {
		return s
	}
	r := []rune(s)
	return string(r[:displayWidth-1]) + "…"
}
