package guard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/azabudai/ctool/database/prepared"
)

// serialize runs json_serialize_sql on text: on a build's connection with the statement it keeps
// prepared (preparing it is a parse and a bind of its own), on anything else as a plain query.
func serialize(ctx context.Context, conn querier, text string) (sql.NullString, error) {
	var out sql.NullString
	c, ok := conn.(*sql.Conn)
	if !ok {
		err := conn.QueryRowContext(ctx, serializeSQL, text).Scan(&out)
		return out, err
	}
	plain := false
	err := c.Raw(func(dc any) error {
		p, ok := dc.(prepared.Preparer)
		if !ok {
			// The connection is locked until Raw returns: the plain query runs after it.
			plain = true
			return nil
		}
		stmt, err := p.Prepared(ctx, serializeSQL)
		if err != nil {
			return err
		}
		rows, err := stmt.(driver.StmtQueryContext).QueryContext(ctx, []driver.NamedValue{{Ordinal: 1, Value: text}})
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return sql.ErrNoRows
			}
			return err
		}
		switch v := dest[0].(type) {
		case nil:
		case string:
			out = sql.NullString{String: v, Valid: true}
		default:
			return fmt.Errorf("json_serialize_sql returned %T", v)
		}
		return nil
	})
	if plain && err == nil {
		err = conn.QueryRowContext(ctx, serializeSQL, text).Scan(&out)
	}
	return out, err
}
