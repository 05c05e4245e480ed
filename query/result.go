package query

import (
	"bytes"
	"encoding/json"

	"github.com/azabudai/ctool/schema"
)

// MaxResultBytes caps the text a result may carry: ten rows can still hold huge cells (list(),
// string_agg), and an agent's context is not the place for them.
const MaxResultBytes = 1 << 20

// Column is a result column.
type Column struct {
	Name string
	Type string // DuckDB's type name
}

// Result is one query's answer: at most schema.RowCap rows, values already converted to JSON-ready Go
// values (values.go): nil, bool, string, the sized integers, float64, json.Number, []any and Object,
// and nothing else, so that a worker can ship it to another process (worker.EncodeResult) and any
// renderer show it.
type Result struct {
	Dataset   *schema.Dataset
	Columns   []Column
	Rows      [][]any
	Truncated bool     // more rows match than were returned, whoever wrote the LIMIT or OFFSET
	Omitted   []string // hidden columns left out of the result by name
	// Hint explains an empty result: the conditions that match no row by themselves and what their
	// columns hold instead, the dates the build holds, the conditions that never meet (hint.Explain,
	// rendered). Empty when rows were found.
	Hint string
	// Note is a remark on what was found, with rows or without: the cells whose text addresses an AI
	// agent, the stores of unknown hours that a query over store_hours would let through, an offer
	// tested by its free text (hint.InjectionNotes, OfferNotes and HoursNotes, rendered).
	Note string `json:",omitempty"`
	// Build is the id of the build the rows were read from (a new ingest may replace it at any time).
	Build string `json:",omitempty"`
}

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a struct or map value of a result (and a JSON document written from one): a JSON object
// whose members keep their order when encoded, as a result row keeps the SELECT's column order.
type Object []Member

// MarshalJSON writes o compact, its members in order, HTML characters unescaped.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := o.encode(&b, enc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encode writes o to b in one pass: nested objects and lists are written in place, not marshalled on
// their own and then copied and checked again by each enclosing level.
func (o Object) encode(b *bytes.Buffer, enc *json.Encoder) error {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeValue(b, enc, m.Key); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := encodeValue(b, enc, m.Value); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func encodeValue(b *bytes.Buffer, enc *json.Encoder, v any) error {
	switch v := v.(type) {
	case Object:
		return v.encode(b, enc)
	case []any:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeValue(b, enc, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}
