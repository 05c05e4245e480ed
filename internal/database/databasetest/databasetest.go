// Package databasetest opens the guard's stand-in database (guardtest.WriteStandIn) as a build, for
// tests of readers that need a reader's connection (database.Conn) on small, known data. Only tests
// import it.
package databasetest

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard/guardtest"
)

// StandIn returns one reader's connection to a fresh copy of the stand-in database, opened read-only
// and locked down as every build is.
func StandIn(tb testing.TB) *database.Conn {
	tb.Helper()
	ctx := context.Background()
	b, err := database.Open(ctx, guardtest.WriteStandIn(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	conn, err := b.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}
