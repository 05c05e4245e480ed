package guard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/azabudai/ctool/internal/database/prepared"
)

// serialize runs json_serialize_sql on text: on a build's connection with the statement it keeps
// prepared (preparing it is a parse and a bind of its own), on anything else as a plain query.
func serialize(ctx context.Context, conn *Conn, text string) (sql.NullString, error) {
	var out sql.NullString
	execErr, readErr := conn.Prepared(ctx, Const(serializeSQL), []any{text}, func(rows driver.Rows) error {
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
	if errors.Is(execErr, prepared.ErrNotPreparer) {
		err := conn.QueryRow(ctx, Const(serializeSQL), text).Scan(&out)
		return out, err
	}
	return out, errors.Join(execErr, readErr)
}
