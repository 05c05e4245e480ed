// Package textout owns how ctool writes JSON and tables for the people and agents who read them: JSON
// without HTML escaping (<, > and & stay as they are: nobody embeds it in a web page), and tables
// whose headers are shown as written (column names are data, never re-cased).
package textout

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// JSON writes v indented, without HTML escaping, followed by a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONLine writes v on one line, without HTML escaping, followed by a newline.
func JSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Marshal encodes like json.Marshal, without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := JSONLine(&b, v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Table is a table writer to w whose headers are shown as written; opts add to that.
func Table(w io.Writer, opts ...tablewriter.Option) *tablewriter.Table {
	return tablewriter.NewTable(w, append([]tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off)}, opts...)...)
}
