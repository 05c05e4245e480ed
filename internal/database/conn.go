package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/azabudai/ctool/internal/guard"
)

// Conn is one call's connection to a build, and the only way ctool's readers run a statement on one.
// Two kinds of statement run on it and nothing else: the guard's checked statement of an agent's query
// (Run), and ctool's own SQL (Query, QueryRow, Prepared), in which anything that came from outside is
// a bound argument. Only this package makes a Conn, from a pool that runs one SELECT per statement and
// nothing else, whatever reached it (selectOnly).
type Conn struct {
	raw *sql.Conn
}

// Conn returns a connection of the file's pool for one call; its Close gives it back.
func (f *File) Conn(ctx context.Context) (*Conn, error) {
	raw, err := f.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{raw: raw}, nil
}

// own refuses what is not one query: ctool's own SQL is a SELECT (or WITH ... SELECT) and nothing else.
func own(q guard.SQL) error {
	head := strings.ToUpper(strings.TrimLeftFunc(q.String(), unicode.IsSpace))
	if !strings.HasPrefix(head, "SELECT") && !strings.HasPrefix(head, "WITH") {
		return fmt.Errorf("database: ctool's own SQL must be a query: %.40q", q.String())
	}
	return nil
}

// Query runs ctool's own SQL with args bound in order.
func (c *Conn) Query(ctx context.Context, q guard.SQL, args ...any) (*Rows, error) {
	if err := own(q); err != nil {
		return nil, err
	}
	rows, err := c.raw.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows}, nil
}

// QueryRow runs ctool's own SQL with args bound in order, for one row.
func (c *Conn) QueryRow(ctx context.Context, q guard.SQL, args ...any) Row {
	if err := own(q); err != nil {
		return Row{err: err}
	}
	return Row{row: c.raw.QueryRowContext(ctx, q.String(), args...)}
}

// Prepared runs ctool's own SQL kept prepared on the connection for as long as it lives (a statement a
// call runs more than once, or every call runs), with args bound in order, and hands its rows to
// read, which must not keep them. execErr is the statement's failure; read's error comes back as
// readErr.
func (c *Conn) Prepared(ctx context.Context, q guard.SQL, args []any, read func(*Stream) error) (execErr, readErr error) {
	if err := own(q); err != nil {
		return err, nil
	}
	return c.stream(ctx, q.String(), args, read)
}

// Run runs the guard's checked statement and hands its rows to read, as Prepared does.
func (c *Conn) Run(ctx context.Context, ch *guard.Checked, read func(*Stream) error) (execErr, readErr error) {
	if ch == nil {
		return errors.New("database: Run needs a checked statement"), nil
	}
	return c.stream(ctx, ch.Text(), ch.Args(), read)
}

func (c *Conn) stream(ctx context.Context, text string, args []any, read func(*Stream) error) (execErr, readErr error) {
	return queryPrepared(ctx, c.raw, text, args, func(rows driver.Rows) error {
		return read(&Stream{rows: rows})
	})
}

// serializeSQL is DuckDB's parser, named with its catalog so that no macro of the opened file can
// stand in. The text is bound: nothing of it runs.
const serializeSQL = "SELECT CAST(system.main.json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"

// SerializeSQL is DuckDB's parse of text as JSON (json_serialize_sql), kept prepared: the guard's
// Parser. null reports a NULL answer.
func (c *Conn) SerializeSQL(ctx context.Context, text string) (out string, null bool, err error) {
	return c.oneText(ctx, serializeSQL, text)
}

// DeserializeSQL is DuckDB's writing of serialized statements back as SQL (json_deserialize_sql, every
// document a bound argument of one statement); an error when it cannot write one of them. The texts
// run only as what guard.Check makes of them.
func (c *Conn) DeserializeSQL(ctx context.Context, docs []string) ([]string, error) {
	calls := make([]guard.SQL, len(docs))
	args := make([]any, len(docs))
	for i, d := range docs {
		calls[i] = guard.Const("system.main.json_deserialize_sql(CAST(? AS JSON))")
		args[i] = d
	}
	out := make([]NullString, len(docs))
	ptrs := make([]any, len(docs))
	for i := range out {
		ptrs[i] = &out[i]
	}
	q := guard.Format("SELECT %s", guard.Join(calls, ", "))
	if err := c.QueryRow(ctx, q, args...).Scan(ptrs...); err != nil {
		return nil, err
	}
	texts := make([]string, len(out))
	for i, o := range out {
		if !o.Valid {
			return nil, errors.New("database: json_deserialize_sql returned NULL")
		}
		texts[i] = o.String
	}
	return texts, nil
}

func (c *Conn) oneText(ctx context.Context, stmt, arg string) (out string, null bool, err error) {
	execErr, readErr := c.stream(ctx, stmt, []any{arg}, func(s *Stream) error {
		dest := make([]any, 1)
		ok, err := s.Next(dest)
		switch {
		case err != nil:
			return err
		case !ok:
			return sql.ErrNoRows
		}
		switch v := dest[0].(type) {
		case nil:
			null = true
		case string:
			out = v
		default:
			return fmt.Errorf("database: %T where text was expected", v)
		}
		return nil
	})
	return out, null, errors.Join(execErr, readErr)
}

// Close ends the call: the connection goes back to its pool.
func (c *Conn) Close() error { return c.raw.Close() }
