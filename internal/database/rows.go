package database

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/duckdb/duckdb-go/v2"
)

// Rows is an answer of Query, read as database/sql reads one: Next, then Scan into pointers (*string,
// *int64, *bool, *any, **string for a NULL, or this package's Null types).
type Rows struct{ rows *sql.Rows }

func (r *Rows) Next() bool                 { return r.rows.Next() }
func (r *Rows) Scan(dest ...any) error     { return r.rows.Scan(dest...) }
func (r *Rows) Err() error                 { return r.rows.Err() }
func (r *Rows) Close() error               { return r.rows.Close() }
func (r *Rows) Columns() ([]string, error) { return r.rows.Columns() }

// Row is QueryRow's answer.
type Row struct {
	row *sql.Row
	err error
}

// Scan reads the row's columns as Rows.Scan does; sql.ErrNoRows (ErrNoRows) when there is none.
func (r Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}

// ErrNoRows is QueryRow's error when the statement returned no row.
var ErrNoRows = sql.ErrNoRows

// NullString, NullBool and NullInt64 are values that may be NULL, for Scan.
type (
	NullString struct {
		String string
		Valid  bool
	}
	NullBool struct {
		Bool  bool
		Valid bool
	}
	NullInt64 struct {
		Int64 int64
		Valid bool
	}
)

func (n *NullString) Scan(v any) error {
	var s sql.NullString
	err := s.Scan(v)
	n.String, n.Valid = s.String, s.Valid
	return err
}

func (n *NullBool) Scan(v any) error {
	var b sql.NullBool
	err := b.Scan(v)
	n.Bool, n.Valid = b.Bool, b.Valid
	return err
}

func (n *NullInt64) Scan(v any) error {
	var i sql.NullInt64
	err := i.Scan(v)
	n.Int64, n.Valid = i.Int64, i.Valid
	return err
}

// Stream is an answer of Prepared or Run, read straight from the driver a row at a time: the fast path
// of every call. Its values are Go's own (Value).
type Stream struct {
	rows driver.Rows
	vals []driver.Value
}

// Columns are the answer's column names.
func (s *Stream) Columns() []string { return s.rows.Columns() }

// Types are the answer's column types as DuckDB names them (VARCHAR, INTEGER[], ...).
func (s *Stream) Types() []string {
	names := s.rows.Columns()
	types := make([]string, len(names))
	if t, ok := s.rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range names {
			types[i] = t.ColumnTypeDatabaseTypeName(i)
		}
	}
	return types
}

// Next fills dest, one element a column, with the next row's values (see Value); false at the end.
func (s *Stream) Next(dest []any) (bool, error) {
	if len(s.vals) != len(dest) {
		s.vals = make([]driver.Value, len(dest))
	}
	if err := s.rows.Next(s.vals); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	for i, v := range s.vals {
		dest[i] = Value(v)
		s.vals[i] = nil
	}
	return true, nil
}

// Decimal is a DECIMAL as DuckDB writes it ("12.50"), exact.
type Decimal string

// Interval is an INTERVAL's parts.
type Interval struct {
	Months, Days int32
	Micros       int64
}

// Map is a MAP's entries in their order.
type Map struct{ Keys, Values []any }

// Value is a value of the driver as a reader gets it: nil, bool, the integer kinds, float32 and
// float64, string, []byte (copied), time.Time, *big.Int, []any (a LIST or ARRAY), map[string]any (a
// STRUCT), Decimal, Interval or Map; elements of the nested kinds are read the same way.
func Value(v any) any {
	switch x := v.(type) {
	case []byte:
		return bytes.Clone(x)
	case duckdb.Decimal:
		return Decimal(x.String())
	case duckdb.Interval:
		return Interval{Months: x.Months, Days: x.Days, Micros: x.Micros}
	case duckdb.OrderedMap:
		return mapOf(&x)
	case *duckdb.OrderedMap:
		return mapOf(x)
	case []any:
		for i, e := range x {
			x[i] = Value(e)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = Value(e)
		}
		return x
	default:
		return v
	}
}

func mapOf(m *duckdb.OrderedMap) Map {
	keys, values := m.Keys(), m.Values()
	out := Map{Keys: make([]any, len(keys)), Values: make([]any, len(values))}
	for i := range keys {
		out.Keys[i] = Value(keys[i])
	}
	for i := range values {
		out.Values[i] = Value(values[i])
	}
	return out
}
