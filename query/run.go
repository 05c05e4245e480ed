package query

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"io"

	"github.com/azabudai/ctool/internal/guard"
)

// rowReader is what readResult reads: a query's columns, then its rows one at a time.
type rowReader interface {
	columns() (names, types []string, err error)
	// next fills dest with the next row's values; false at the end.
	next(dest []any) (bool, error)
}

// runChecked runs the guard's checked statement on conn and hands its rows to read. The statement is
// kept prepared on the connection (it is the same text for every query: the query is its argument),
// and a worker started with --warm-up has it prepared before its first call (worker.Options.WarmUp).
// execErr is the statement's failure (DuckDB's message); an error of read comes back as it is.
func runChecked(ctx context.Context, conn *guard.Conn, c *guard.Checked, read func(rowReader) error) (execErr, readErr error) {
	return conn.Run(ctx, c, func(rows driver.Rows) error {
		return read(&driverRows{rows: rows})
	})
}

// driverRows reads the driver's rows as database/sql would scan them into *any: bytes copied.
type driverRows struct {
	rows driver.Rows
	vals []driver.Value
}

func (r *driverRows) columns() (names, types []string, err error) {
	names = r.rows.Columns()
	types = make([]string, len(names))
	if t, ok := r.rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range names {
			types[i] = t.ColumnTypeDatabaseTypeName(i)
		}
	}
	return names, types, nil
}

func (r *driverRows) next(dest []any) (bool, error) {
	if r.vals == nil {
		r.vals = make([]driver.Value, len(dest))
	}
	if err := r.rows.Next(r.vals); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	for i, v := range r.vals {
		if b, ok := v.([]byte); ok {
			v = bytes.Clone(b)
		}
		dest[i] = v
		r.vals[i] = nil
	}
	return true, nil
}
