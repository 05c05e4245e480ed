package guard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/azabudai/ctool/internal/database/prepared"
)

// Conn is one call's connection to a build, and the only way ctool's readers run a statement on one.
// Two kinds of statement run on it and nothing else: the guard's checked statement of an agent's query
// (Run), and ctool's own SQL (Query, QueryRow, Prepared), in which anything that came from outside is
// a bound argument. A Conn serves one call; the connections its opener (the database package) hands
// out run one SELECT per statement and nothing else, whatever reached them (prepared.SelectOnly).
type Conn struct {
	raw     *sql.Conn
	release func(*sql.Conn) error
}

// NewConn makes raw a Conn; release, when not nil, is what Close does with it instead of closing it.
// Only the code that opens builds (the database package, and tests) calls it.
func NewConn(raw *sql.Conn, release func(*sql.Conn) error) *Conn {
	return &Conn{raw: raw, release: release}
}

// own refuses what is not one query: ctool's own SQL is a SELECT (or WITH ... SELECT) and nothing else.
func own(q SQL) error {
	head := strings.ToUpper(strings.TrimLeftFunc(q.text, unicode.IsSpace))
	if !strings.HasPrefix(head, "SELECT") && !strings.HasPrefix(head, "WITH") {
		return fmt.Errorf("guard: ctool's own SQL must be a query: %.40q", q.text)
	}
	return nil
}

// Query runs ctool's own SQL with args bound in order.
func (c *Conn) Query(ctx context.Context, q SQL, args ...any) (*sql.Rows, error) {
	if err := own(q); err != nil {
		return nil, err
	}
	return c.raw.QueryContext(ctx, q.text, args...)
}

// Row is QueryRow's answer.
type Row struct {
	row *sql.Row
	err error
}

// Scan reads the row's columns as sql.Row.Scan does.
func (r Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}

// QueryRow runs ctool's own SQL with args bound in order, for one row.
func (c *Conn) QueryRow(ctx context.Context, q SQL, args ...any) Row {
	if err := own(q); err != nil {
		return Row{err: err}
	}
	return Row{row: c.raw.QueryRowContext(ctx, q.text, args...)}
}

// Prepared runs ctool's own SQL kept prepared on the connection for as long as it lives (a statement a
// call runs more than once, or every call runs), with args bound in order, and hands its rows to
// read, which must not keep them. execErr is the statement's failure; read's error comes back as
// readErr.
func (c *Conn) Prepared(ctx context.Context, q SQL, args []any, read func(driver.Rows) error) (execErr, readErr error) {
	if err := own(q); err != nil {
		return err, nil
	}
	return prepared.Query(ctx, c.raw, q.text, args, read)
}

// Run runs the guard's checked statement and hands its rows to read, as Prepared does.
func (c *Conn) Run(ctx context.Context, ch *Checked, read func(driver.Rows) error) (execErr, readErr error) {
	if ch == nil {
		return errors.New("guard: Run needs a checked statement"), nil
	}
	return prepared.Query(ctx, c.raw, ch.run.text, ch.args, read)
}

// Close ends the call: the connection is released as its opener said, or closed.
func (c *Conn) Close() error {
	if c.release != nil {
		return c.release(c.raw)
	}
	return c.raw.Close()
}
