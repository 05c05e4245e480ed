package validation

// The record a problem of a row is in, named by its key: "the row of store_id STR-0002" says more to
// the person fixing the data than a line number alone.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
)

// Record is a row's key: its cells of the dataset's Key columns that could be read, in the Key's order.
// In JSON it is an object, column by column in that order.
type Record []KeyCell

// KeyCell is one cell of a row's key. A long value is cut to recordRunes characters, with … after the
// cut.
type KeyCell struct {
	Column string
	Value  string
}

// recordRunes is how much of a key's cell a record keeps, as a message quotes a cell.
const recordRunes = 60

// MarshalJSON writes the record as one object, its keys in the Key's order.
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := textout.Marshal(c.Column)
		if err != nil {
			return nil, err
		}
		v, err := textout.Marshal(c.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object MarshalJSON writes, keeping its keys' order.
func (r *Record) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("a record is a JSON object, not %s", b)
	}
	var out Record
	for dec.More() {
		var c KeyCell
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		c.Column, _ = tok.(string)
		if err := dec.Decode(&c.Value); err != nil {
			return err
		}
		out = append(out, c)
	}
	*r = out
	return nil
}

// described is the problem's message with the record it is in, where the key says more than the
// message: the key's cells other than the problem's own column, which the message already quotes.
func (p Problem) described() string {
	var parts []string
	for _, c := range p.Record {
		if c.Column != p.Column {
			parts = append(parts, c.Column+" "+escape.Quote(c.Value))
		}
	}
	if parts == nil {
		return p.Message
	}
	return p.Message + " (record: " + strings.Join(parts, ", ") + ")"
}

// keyAt is a key column and where the current file has it.
type keyAt struct {
	column string
	at     int
}

// rowKey is where f's key cells are, in the Key's order; nil for personal data, whose keys no report
// names.
func rowKey(f *File) []keyAt {
	if f.Dataset.Private {
		return nil
	}
	var key []keyAt
	for _, col := range f.Dataset.Key {
		if i := indexOf(f.Header, col); i >= 0 {
			key = append(key, keyAt{col, i})
		}
	}
	return key
}

// recordOf is the key of the row being checked: its key cells that are not empty and are UTF-8.
func (v *validator) recordOf() Record {
	var r Record
	for _, k := range v.rowKey {
		cell := v.row[k.at]
		if cell == "" || !utf8.ValidString(cell) {
			continue
		}
		if utf8.RuneCountInString(cell) > recordRunes {
			n := 0
			for at := range cell {
				if n == recordRunes {
					cell = cell[:at] + "…"
					break
				}
				n++
			}
		}
		r = append(r, KeyCell{Column: k.column, Value: strings.Clone(cell)})
	}
	return r
}

// addRow adds a problem of the row being checked, named by its record when the report keeps it.
func (v *validator) addRow(p Problem) {
	if v.row != nil && (v.report.Max == 0 || len(v.report.Problems) < v.report.Max) {
		p.Record = v.recordOf()
	}
	v.report.add(p)
}
