package database

// The statements a connection runs on every call stay prepared on it and close with it; a reader's
// connection also lets DuckDB itself refuse every statement that is not one SELECT (selectOnly).

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// preparer is a connection, reached through sql.Conn.Raw, that keeps statements
// prepared on it: a statement a call runs every time (the guard's json_serialize_sql, the row-capped
// query) is parsed and bound once per connection, not once per call.
type preparer interface {
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
	stmts      map[string]driver.Stmt
	onlySelect bool
}

var _ preparer = (*conn)(nil)

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

// ErrNotSelect is the error of a statement a SelectOnly connection refused.
var ErrNotSelect = errors.New("database: a reader's connection runs one SELECT per statement, nothing else")

// PrepareContext prepares text; on a SelectOnly connection only after DuckDB's parser has found it to
// be exactly one SELECT, and the prepared statement is DuckDB's SELECT. Whatever got past every check
// above this one (the guard, the types that carry ctool's SQL), a statement that could leave
// something behind (a temporary object, a variable, ATTACH, USE, SET, PREPARE, CALL) never runs.
func (c *conn) PrepareContext(ctx context.Context, text string) (driver.Stmt, error) {
	if c.onlySelect {
		if err := c.oneSelect(ctx, text); err != nil {
			return nil, err
		}
	}
	s, err := c.Conn.PrepareContext(ctx, text)
	if err != nil || !c.onlySelect {
		return s, err
	}
	typ, err := s.(*duckdb.Stmt).StatementType()
	if err != nil || typ != duckdb.STATEMENT_TYPE_SELECT {
		s.Close()
		return nil, fmt.Errorf("%w (statement type %d): %.80q", ErrNotSelect, typ, text)
	}
	return s, nil
}

// QueryContext runs text through PrepareContext, so that a SelectOnly connection checks it too.
func (c *conn) QueryContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Rows, error) {
	if !c.onlySelect {
		return c.Conn.QueryContext(ctx, text, args)
	}
	s, err := c.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	rows, err := s.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		s.Close()
		return nil, err
	}
	return &closingRows{Rows: rows, stmt: s}, nil
}

// ExecContext refuses everything on a SelectOnly connection: nothing a reader runs is executed for its
// effect.
func (c *conn) ExecContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Result, error) {
	if c.onlySelect {
		return nil, fmt.Errorf("%w: %.80q", ErrNotSelect, text)
	}
	return c.Conn.ExecContext(ctx, text, args)
}

// closingRows closes its statement with it.
type closingRows struct {
	driver.Rows
	stmt driver.Stmt
}

func (r *closingRows) Close() error { return errors.Join(r.Rows.Close(), r.stmt.Close()) }

// checkText is how oneSelect asks DuckDB's parser: json_serialize_sql serializes SELECTs only, and
// reports any other statement, or a text it cannot parse, as an error of its own.
const checkText = "SELECT CAST(system.main.json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"

// oneSelects are the texts found to be one SELECT, by this process: the same few texts run again and
// again (ctool's own statements are constants; a query shape's is one text per shape).
var oneSelects = struct {
	sync.Mutex
	texts map[string]bool
}{texts: map[string]bool{checkText: true}}

const maxOneSelects = 4096

// oneSelect reports whether DuckDB's parser reads text as exactly one SELECT. Preparing a text of
// several statements would run all but the last: duckdb-go executes them on the way.
func (c *conn) oneSelect(ctx context.Context, text string) error {
	oneSelects.Lock()
	known := oneSelects.texts[text]
	oneSelects.Unlock()
	if known {
		return nil
	}
	rows, err := c.Conn.QueryContext(ctx, checkText, []driver.NamedValue{{Ordinal: 1, Value: text}})
	if err != nil {
		return err
	}
	dest := make([]driver.Value, 1)
	err = rows.Next(dest)
	rows.Close()
	if err != nil {
		return err
	}
	out, _ := dest[0].(string)
	var res struct {
		Error      bool              `json:"error"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		// DuckDB writes a constant too large for a DOUBLE as a bare Infinity: still one statement of
		// JSON it made; read only the count.
		res.Error = true
	}
	if res.Error || len(res.Statements) != 1 {
		return fmt.Errorf("%w: %.80q", ErrNotSelect, text)
	}
	oneSelects.Lock()
	if len(oneSelects.texts) >= maxOneSelects {
		oneSelects.texts = map[string]bool{checkText: true}
	}
	oneSelects.texts[text] = true
	oneSelects.Unlock()
	return nil
}

// Option says how Connector's connections behave.
type connOption func(*conn)

// selectOnly makes every connection refuse, by DuckDB's own parse and statement type, any statement
// that is not one SELECT: for the connections of a reader.
func selectOnly() connOption { return func(c *conn) { c.onlySelect = true } }

// preparedConnector hands out connections of c that are preparers; sql.OpenDB of it closes c with the
// pool.
func preparedConnector(c *duckdb.Connector, opts ...connOption) driver.Connector {
	return connector{c, opts}
}

type connector struct {
	*duckdb.Connector
	opts []connOption
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
	pc := &conn{Conn: d}
	for _, o := range c.opts {
		o(pc)
	}
	return pc, nil
}

// queryPrepared runs text, kept prepared on conn's driver connection, with args bound in order, and hands its
// rows to read, which must not keep them. An error of read comes back as readErr; any other, from
// preparing or running the statement, as execErr. A connection that keeps no statements (not a
// Preparer) gives an execErr.
func queryPrepared(ctx context.Context, conn *sql.Conn, text string, args []any, read func(driver.Rows) error) (execErr, readErr error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	err := conn.Raw(func(dc any) error {
		p, ok := dc.(preparer)
		if !ok {
			execErr = errNotPreparer
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

// errNotPreparer is queryPrepared's error on a connection opened without preparedConnector.
var errNotPreparer = errors.New("database: the connection keeps no statements (not opened through preparedConnector)")
