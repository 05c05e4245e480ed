// Package prepared keeps the statements a DuckDB connection runs on every call prepared on it, and
// closes them with the connection. It imports nothing of ctool, so that the guard and its tests can
// use it as well as the database package.
package prepared

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/duckdb/duckdb-go/v2"
)

// Preparer is a connection, reached through sql.Conn.Raw, that keeps statements
// prepared on it: a statement a call runs every time (the guard's json_serialize_sql, the row-capped
// query) is parsed and bound once per connection, not once per call.
type Preparer interface {
	// Prepared returns text prepared on this connection, preparing it the first time. The statement
	// belongs to the connection: never close it, and use it only inside the Raw call that got it.
	Prepared(ctx context.Context, text string) (driver.Stmt, error)
}

// maxPrepared bounds one connection's statements: a few fixed texts, and the statements of the query
// shapes the engine learned (query/shape.go).
const maxPrepared = 64

// conn is a DuckDB connection that closes its prepared statements when it closes. A prepared
// statement holds DuckDB's client context, and with it the whole instance: one left open keeps a
// replaced build's memory and file open for as long as the process lives.
type conn struct {
	*duckdb.Conn
	stmts map[string]driver.Stmt
}

var _ Preparer = (*conn)(nil)

func (c *conn) Prepared(ctx context.Context, text string) (driver.Stmt, error) {
	if s, ok := c.stmts[text]; ok {
		return s, nil
	}
	s, err := c.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if len(c.stmts) >= maxPrepared {
		// One goes, any one: a statement is used only inside the Raw call that got it, and this
		// connection is in no other call now.
		for old, st := range c.stmts {
			delete(c.stmts, old)
			if err := st.Close(); err != nil {
				s.Close()
				return nil, err
			}
			break
		}
	}
	if c.stmts == nil {
		c.stmts = map[string]driver.Stmt{}
	}
	c.stmts[text] = s
	return s, nil
}

func (c *conn) closeStmts() error {
	var errs []error
	for text, s := range c.stmts {
		errs = append(errs, s.Close())
		delete(c.stmts, text)
	}
	return errors.Join(errs...)
}

// Close closes the statements before the connection, so that closing the pool frees the instance.
func (c *conn) Close() error {
	return errors.Join(c.closeStmts(), c.Conn.Close())
}

// Connector hands out connections of c that are Preparers; sql.OpenDB(Connector(c)) closes c with
// the pool.
func Connector(c *duckdb.Connector) driver.Connector { return connector{c} }

type connector struct {
	*duckdb.Connector
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d, ok := dc.(*duckdb.Conn)
	if !ok {
		return dc, nil
	}
	return &conn{Conn: d}, nil
}

// Query runs text, kept prepared on conn's driver connection, with args bound in order, and hands its
// rows to read, which must not keep them. An error of read comes back as readErr; any other, from
// preparing or running the statement, as execErr. A connection that keeps no statements (not a
// Preparer) gives an execErr.
func Query(ctx context.Context, conn *sql.Conn, text string, args []any, read func(driver.Rows) error) (execErr, readErr error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	err := conn.Raw(func(dc any) error {
		p, ok := dc.(Preparer)
		if !ok {
			execErr = ErrNotPreparer
			return nil
		}
		stmt, err := p.Prepared(ctx, text)
		if err != nil {
			execErr = err
			return nil
		}
		rows, err := stmt.(driver.StmtQueryContext).QueryContext(ctx, named)
		if err != nil {
			execErr = err
			return nil
		}
		defer rows.Close()
		readErr = read(rows)
		return nil
	})
	if err != nil && execErr == nil && readErr == nil {
		execErr = err
	}
	return execErr, readErr
}

// ErrNotPreparer is Query's error on a connection opened without Connector.
var ErrNotPreparer = errors.New("prepared: the connection keeps no statements (not opened through prepared.Connector)")
