package query

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"sync"

	"github.com/azabudai/ctool/guard"
	"github.com/duckdb/duckdb-go/v2"
)

// rowReader is what readResult reads: a query's columns, then its rows one at a time.
type rowReader interface {
	columns() (names, types []string, err error)
	// next fills dest with the next row's values; false at the end.
	next(dest []any) (bool, error)
}

// runChecked runs the guard's checked statement on conn and hands its rows to read. The statement is
// prepared once per connection and kept (it is the same text for every query: the query is its
// argument), so a call pays for binding and running it, not for parsing and preparing it again.
// execErr is the statement's failure (DuckDB's message); an error of read comes back as it is.
func runChecked(ctx context.Context, conn *sql.Conn, c *guard.Checked, read func(rowReader) error) (execErr, readErr error) {
	args := make([]driver.NamedValue, len(c.Args))
	for i, a := range c.Args {
		args[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	err := conn.Raw(func(dc any) error {
		dconn, ok := dc.(*duckdb.Conn)
		if !ok {
			execErr = errors.New("query: not a DuckDB connection")
			return nil
		}
		stmt, err := runStatement(ctx, dconn, c.SQL)
		if err != nil {
			execErr = err
			return nil
		}
		rows, err := stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
		if err != nil {
			execErr = err
			return nil
		}
		defer rows.Close()
		readErr = read(&driverRows{rows: rows})
		return nil
	})
	if err != nil && execErr == nil && readErr == nil {
		execErr = err
	}
	return execErr, readErr
}

// runStatements keeps each connection's prepared statements by text, as guard/prepared.go keeps its
// json_serialize_sql statement; bounded like it, in case connections come and go.
var runStatements = struct {
	sync.Mutex
	m map[runKey]driver.Stmt
}{m: map[runKey]driver.Stmt{}}

type runKey struct {
	conn *duckdb.Conn
	sql  string
}

const maxRunStatements = 256

func runStatement(ctx context.Context, c *duckdb.Conn, text string) (driver.Stmt, error) {
	runStatements.Lock()
	defer runStatements.Unlock()
	k := runKey{c, text}
	if s, ok := runStatements.m[k]; ok {
		return s, nil
	}
	s, err := c.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if len(runStatements.m) >= maxRunStatements {
		clear(runStatements.m)
	}
	runStatements.m[k] = s
	return s, nil
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
