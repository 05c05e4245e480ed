package guard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// serializers holds json_serialize_sql prepared once per DuckDB connection: preparing it is a parse and
// a bind of its own, on every call otherwise. Connections of a closed build stay in it until it is
// cleared at maxSerializers (a build has 4, and builds change only at an ingest).
var serializers = struct {
	sync.Mutex
	m map[*duckdb.Conn]driver.Stmt
}{m: map[*duckdb.Conn]driver.Stmt{}}

const maxSerializers = 256

// serialize runs json_serialize_sql on text: on a *sql.Conn with the connection's prepared statement,
// on anything else (tests' stand-ins) as a plain query.
func serialize(ctx context.Context, conn querier, text string) (sql.NullString, error) {
	var out sql.NullString
	c, ok := conn.(*sql.Conn)
	if !ok {
		err := conn.QueryRowContext(ctx, serializeSQL, text).Scan(&out)
		return out, err
	}
	err := c.Raw(func(dc any) error {
		dconn, ok := dc.(*duckdb.Conn)
		if !ok {
			return conn.QueryRowContext(ctx, serializeSQL, text).Scan(&out)
		}
		stmt, err := serializer(ctx, dconn)
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
	return out, err
}

// serializer returns the connection's prepared json_serialize_sql, preparing it the first time.
func serializer(ctx context.Context, c *duckdb.Conn) (driver.Stmt, error) {
	serializers.Lock()
	defer serializers.Unlock()
	if s, ok := serializers.m[c]; ok {
		return s, nil
	}
	s, err := c.PrepareContext(ctx, serializeSQL)
	if err != nil {
		return nil, err
	}
	if len(serializers.m) >= maxSerializers {
		clear(serializers.m)
	}
	serializers.m[c] = s
	return s, nil
}
