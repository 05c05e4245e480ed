// Package render shows a query's answer to people and agents: a query.Result as a table (fitted to a
// terminal), JSON, JSON lines, CSV or markdown, with its remarks (the truncation hint, the left-out
// columns, the empty result's hint) where each format has room for them, and the hints of errors that
// are the caller's to act on (TimeoutHint). It runs nothing: the engine (query/) has answered.
package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
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

// Options are how a result is shown, as the command line asked.
type Options struct {
	Format string // one of Formats
	// Width fits a text table to a terminal that many columns wide: when the table is wider, the
	// widest columns are narrowed and their cells wrapped so that every line fits, and when that would
	// leave a column too narrow to read, each row is shown as a block of "column | value" lines
	// instead (textout.Fit). 0 fits nothing, as for a file or a pipe; other formats ignore it.
	Width int
}

// Write renders res to out as o says. notes receives remarks for people (the truncation hint, left-out
// columns, an empty result's hint) in the formats that have no place for them.
func Write(out, notes io.Writer, res *query.Result, o Options) error {
	format := o.Format
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
		width := o.Width
		if format == FormatMarkdown {
			width = 0
		}
		if err := writeTable(out, format == FormatMarkdown, res, width); err != nil {
			return err
		}
		return writeHint(notes, res)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// Document is the JSON answer of a query: {"results": [...], "count": N, "truncated": bool}, with the
// dataset's message when nothing matched, a hint when more matched than came back, and a note on
// left-out columns.
// Rows keep the SELECT's column order.
func Document(res *query.Result) any {
	rows := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = rowObject(res.Columns, r)
	}
	doc := query.Object{{Key: "results", Value: rows}, {Key: "count", Value: len(res.Rows)}, {Key: "truncated", Value: res.Truncated}}
	if len(res.Rows) == 0 && !res.Truncated { // LIMIT 0 of rows that match is no empty result
		doc = append(doc, query.Member{Key: "message", Value: res.Dataset.ZeroMessage})
		if res.Hint != "" {
			doc = append(doc, query.Member{Key: "hint", Value: res.Hint})
		}
	}
	if res.Truncated {
		doc = append(doc, query.Member{Key: "hint", Value: TruncatedHint(len(res.Rows))})
	}
	if note := omittedNote(res); note != "" {
		doc = append(doc, query.Member{Key: "note", Value: note})
	}
	return doc
}

// DocumentJSON is Document(res) encoded as textout.Marshal encodes it, in one pass: the document
// writes itself compact, so the encoder's check and compaction of what it wrote would change nothing.
func DocumentJSON(res *query.Result) ([]byte, error) {
	return Document(res).(query.Object).MarshalJSON()
}

// omittedNote says plainly which columns a result leaves out and why, and adds the result's Note.
func omittedNote(res *query.Result) string {
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

func rowObject(cols []query.Column, values []any) query.Object {
	obj := make(query.Object, len(cols))
	for i, c := range cols {
		obj[i] = query.Member{Key: c.Name, Value: values[i]}
	}
	return obj
}

// writeNotes puts the remarks of the streaming formats on the notes stream.
func writeNotes(notes io.Writer, res *query.Result) error {
	if res.Truncated {
		fmt.Fprintln(notes, "ctool: "+TruncatedHint(len(res.Rows)))
	}
	if note := omittedNote(res); note != "" {
		fmt.Fprintln(notes, "ctool: "+note)
	}
	return writeHint(notes, res)
}

// writeHint puts an empty result's hint on the notes stream, where table and markdown keep it off
// the result itself. It quotes the query's literals and the data's values: control characters are
// shown escaped.
func writeHint(notes io.Writer, res *query.Result) error {
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
