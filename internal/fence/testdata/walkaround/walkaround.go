// Package walkaround is a reader that reaches the engine around the guard, kept as a fixture that the
// fence must refuse (internal/fence). It is never built into ctool.
package walkaround

import (
	"context"
	"database/sql"

	"github.com/duckdb/duckdb-go/v2"
)

// querier is an interface over database/sql's own types: text run through it reaches no guard.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// OpenOwn opens a connector of its own, with no lock-down, and runs text through an interface and
// through a method value.
func OpenOwn(ctx context.Context, text string) error {
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		return err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	var q querier = db
	rows, err := q.QueryContext(ctx, text)
	if err != nil {
		return err
	}
	rows.Close()
	run := db.ExecContext
	_, err = run(ctx, text)
	return err
}

// Allowed is the one function the fixture's allow-list names; Sneaky, beside it, is not.
func Allowed(ctx context.Context, db *sql.DB) error { return db.PingContext(ctx) }

func Sneaky(ctx context.Context, db *sql.DB, text string) error {
	_, err := db.ExecContext(ctx, text)
	return err
}
