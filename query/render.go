package query

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Output formats of `ctool query`. FormatText is a table for people; the command line also accepts
// its old name, table.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatJSONL    = "jsonl"
	FormatCSV      = "csv"
	FormatMarkdown = "markdown"
)

// Formats lists the output formats.
var Formats = []string{FormatText, FormatJSON, FormatJSONL, FormatCSV, FormatMarkdown}

// displayWidth is how many characters of a cell table and markdown show.
const displayWidth = 60

// TruncatedHint tells an agent what to do when more rows matched than the returned ones: past the
// row cap, narrow or page; past the query's own lower LIMIT, raise it or page.
func TruncatedHint(returned int) string {
	if returned >= schema.RowCap {
		return capHint
	}
	return fmt.Sprintf("more rows matched than the %d the LIMIT returned: raise it (up to %d), or page with ORDER BY ... OFFSET", returned, schema.RowCap)
}

var capHint = fmt.Sprintf("more rows matched than the %d returned: narrow the WHERE clause, or page with ORDER BY ... LIMIT %d OFFSET %d",
	schema.RowCap, schema.RowCap, schema.RowCap)

// Write renders res in format to out. notes receives remarks for people (the truncation hint, left-out
// columns) in the formats that have no place for them.
func Write(out, notes io.Writer, format string, res *Result) error {
	switch format {
	case FormatJSON:
		return textout.JSONFor(out, Document(res))
	case FormatJSONL:
		for _, row := range res.Rows {
			b, err := textout.Marshal(rowObject(res.Columns, row))
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(out, "%s\n", b); err != nil {
				return err
			}
		}
		return writeNotes(notes, res)
	case FormatCSV:
		w := csv.NewWriter(out)
		names := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			names[i] = c.Name
		}
		w.Write(names)
		for _, row := range res.Rows {
			record := make([]string, len(row))
			for i, v := range row {
				record[i] = cellText(v)
			}
			w.Write(record)
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		return writeNotes(notes, res)
	case FormatText, FormatMarkdown:
		if err := writeTable(out, format == FormatMarkdown, res, 0); err != nil {
			return err
		}
		return WriteHint(notes, res)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// Document is the JSON answer of a query: {"results": [...], "count": N, "truncated": bool}, with the
// dataset's message when nothing matched, a hint when more matched than came back, and a note on
// left-out columns.
// Rows keep the SELECT's column order.
func Document(res *Result) any {
	rows := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = rowObject(res.Columns, r)
	}
	doc := Object{{"results", rows}, {"count", len(res.Rows)}, {"truncated", res.Truncated}}
	if len(res.Rows) == 0 && !res.Truncated { // LIMIT 0 of rows that match is no empty result
		doc = append(doc, Member{"message", res.Dataset.ZeroMessage})
		if res.Hint != "" {
			doc = append(doc, Member{"hint", res.Hint})
		}
	}
	if res.Truncated {
		doc = append(doc, Member{"hint", TruncatedHint(len(res.Rows))})
	}
	if note := omittedNote(res); note != "" {
		doc = append(doc, Member{"note", note})
	}
	return doc
}

// DocumentJSON is Document(res) encoded as textout.Marshal encodes it, in one pass: the document
// writes itself compact, so the encoder's check and compaction of what it wrote would change nothing.
func DocumentJSON(res *Result) ([]byte, error) {
	return Document(res).(Object).MarshalJSON()
}

// omittedNote says plainly which columns a result leaves out and why, and adds the result's Note.
func omittedNote(res *Result) string {
	if len(res.Omitted) == 0 {
		return res.Note
	}
	var hidden []string
	for _, c := range res.Dataset.Columns {
		if c.Hidden {
			hidden = append(hidden, c.Name)
		}
	}
	note := fmt.Sprintf("left out %s: %s is internal to %s and never shown; use it only in WHERE or JOIN",
		strings.Join(res.Omitted, ", "), strings.Join(hidden, ", "), res.Dataset.Name)
	if res.Note != "" {
		note += "; " + res.Note
	}
	return note
}

func rowObject(cols []Column, values []any) Object {
	obj := make(Object, len(cols))
	for i, c := range cols {
		obj[i] = Member{c.Name, values[i]}
	}
	return obj
}

// writeNotes puts the remarks of the streaming formats on the notes stream.
func writeNotes(notes io.Writer, res *Result) error {
	if res.Truncated {
		fmt.Fprintln(notes, "ctool: "+TruncatedHint(len(res.Rows)))
	}
	if note := omittedNote(res); note != "" {
		fmt.Fprintln(notes, "ctool: "+note)
	}
	return WriteHint(notes, res)
}

// WriteHint puts an empty result's hint on the notes stream, where table and markdown keep it off
// the result itself. It quotes the query's literals and the data's values: control characters are
// shown escaped.
func WriteHint(notes io.Writer, res *Result) error {
	if res.Hint != "" && len(res.Rows) == 0 {
		_, err := fmt.Fprintln(notes, "ctool: hint: "+escape.Visible(res.Hint))
		return err
	}
	return nil
}

// cellText renders a value as plain text: strings as they are, NULL empty, the rest as JSON.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := textout.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// writeTable renders a table (or a markdown table) for people: long cells are cut for display only.
// A width above 0 fits the table to a terminal that wide (textout.Fit), or shows it expanded.
func writeTable(out io.Writer, markdown bool, res *Result, width int) error {
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
