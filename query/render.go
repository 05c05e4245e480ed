package query

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Output formats of `ctool query`.
const (
	FormatTable    = "table"
	FormatJSON     = "json"
	FormatJSONL    = "jsonl"
	FormatCSV      = "csv"
	FormatMarkdown = "markdown"
)

// Formats lists the output formats.
var Formats = []string{FormatTable, FormatJSON, FormatJSONL, FormatCSV, FormatMarkdown}

// displayWidth is how many characters of a cell table and markdown show.
const displayWidth = 60

// TruncatedHint tells an agent what to do when more rows matched than were returned.
const TruncatedHint = "more rows matched than the 10 returned: narrow the WHERE clause, or page with ORDER BY ... LIMIT 10 OFFSET 10"

// NewSink returns the sink that writes a result in format to out. notes receives remarks for people
// (the truncation hint) in the formats that have no place for them.
func NewSink(format string, d *schema.Dataset, out, notes io.Writer) (Sink, error) {
	switch format {
	case FormatJSON:
		return &jsonSink{out: out, zero: d.ZeroMessage}, nil
	case FormatJSONL:
		return &jsonlSink{out: out, notes: notes}, nil
	case FormatCSV:
		return &csvSink{w: csv.NewWriter(out), notes: notes}, nil
	case FormatTable, FormatMarkdown:
		return &tableSink{out: out, markdown: format == FormatMarkdown, zero: d.ZeroMessage}, nil
	}
	return nil, fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// jsonSink writes {"results": [...], "count": N, "truncated": bool} and, when nothing matched,
// the dataset's message.
type jsonSink struct {
	out  io.Writer
	zero string
	cols []Column
	rows []any
}

func (s *jsonSink) Begin(cols []Column) error { s.cols = cols; return nil }

func (s *jsonSink) Row(values []any) error {
	s.rows = append(s.rows, rowObject(s.cols, values))
	return nil
}

func (s *jsonSink) End(count int, truncated bool) error {
	doc := orderedObject{{"results", nonNil(s.rows)}, {"count", count}, {"truncated", truncated}}
	if count == 0 {
		doc = append(doc, kv{"message", s.zero})
	}
	if truncated {
		doc = append(doc, kv{"hint", TruncatedHint})
	}
	return WriteJSON(s.out, doc)
}

func nonNil(rows []any) []any {
	if rows == nil {
		return []any{}
	}
	return rows
}

// WriteJSON writes v indented and without HTML escaping: agents and people read it.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func rowObject(cols []Column, values []any) orderedObject {
	obj := make(orderedObject, len(cols))
	for i, c := range cols {
		obj[i] = kv{c.Name, values[i]}
	}
	return obj
}

// jsonlSink streams one JSON object per row.
type jsonlSink struct {
	out   io.Writer
	notes io.Writer
	cols  []Column
}

func (s *jsonlSink) Begin(cols []Column) error { s.cols = cols; return nil }

func (s *jsonlSink) Row(values []any) error {
	b, err := marshal(rowObject(s.cols, values))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.out, "%s\n", b)
	return err
}

func (s *jsonlSink) End(_ int, truncated bool) error {
	if truncated {
		fmt.Fprintln(s.notes, "ctool: "+TruncatedHint)
	}
	return nil
}

// csvSink streams a header and one record per row; nested values are written as JSON.
type csvSink struct {
	w     *csv.Writer
	notes io.Writer
}

func (s *csvSink) Begin(cols []Column) error {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return s.w.Write(names)
}

func (s *csvSink) Row(values []any) error {
	record := make([]string, len(values))
	for i, v := range values {
		record[i] = cellText(v)
	}
	if err := s.w.Write(record); err != nil {
		return err
	}
	s.w.Flush()
	return s.w.Error()
}

func (s *csvSink) End(_ int, truncated bool) error {
	s.w.Flush()
	if truncated {
		fmt.Fprintln(s.notes, "ctool: "+TruncatedHint)
	}
	return s.w.Error()
}

// cellText renders a value as plain text: strings as they are, NULL empty, the rest as JSON.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// tableSink renders a table (or a markdown table) for people: long cells are cut for display only.
type tableSink struct {
	out      io.Writer
	markdown bool
	zero     string
	cols     []Column
	rows     [][]string
}

func (s *tableSink) Begin(cols []Column) error { s.cols = cols; return nil }

func (s *tableSink) Row(values []any) error {
	row := make([]string, len(values))
	for i, v := range values {
		text := cellText(v)
		if v == nil {
			text = "NULL"
		}
		row[i] = shorten(text)
	}
	s.rows = append(s.rows, row)
	return nil
}

func (s *tableSink) End(count int, truncated bool) error {
	if count == 0 {
		_, err := fmt.Fprintln(s.out, s.zero)
		return err
	}
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone)}
	if s.markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(s.out, opts...)
	header := make([]any, len(s.cols))
	for i, c := range s.cols {
		header[i] = c.Name
	}
	t.Header(header...)
	for _, r := range s.rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	rows := "rows"
	if count == 1 {
		rows = "row"
	}
	footer := fmt.Sprintf("(%d %s)", count, rows)
	if truncated {
		footer = fmt.Sprintf("(%d %s; %s)", count, rows, TruncatedHint)
	}
	_, err := fmt.Fprintln(s.out, footer)
	return err
}

// shorten puts a cell on one line and cuts it to displayWidth characters.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return s
	}
	if utf8.RuneCountInString(s) <= displayWidth {
		return s
	}
	r := []rune(s)
	return string(r[:displayWidth-1]) + "…"
}

// WriteError writes {"error": message} for an agent.
func WriteError(w io.Writer, err error) error {
	b, merr := marshal(orderedObject{{"error", err.Error()}})
	if merr != nil {
		return merr
	}
	_, werr := fmt.Fprintf(w, "%s\n", b)
	return werr
}
