package database

import (
	"context"
	"database/sql"
)

// SmallBuildDisabledOptimizers is smallBuildDisabledOptimizers, for the benchmark of what they cost.
var SmallBuildDisabledOptimizers = smallBuildDisabledOptimizers

// DB is the file's pool itself, for this package's tests of what the lock-down refuses whatever the
// guard lets through.
func (f *File) DB() *sql.DB { return f.db }

// TakeRaw is a connection as Conn hands it to a call, without the guard around it: what a statement
// that got past the guard would run on.
func (f *File) TakeRaw(ctx context.Context) (*sql.Conn, error) { return f.db.Conn(ctx) }

// ReleaseRaw ends the call of a TakeRaw connection as Conn.Close does.
func (f *File) ReleaseRaw(raw *sql.Conn) error { return raw.Close() }

// Preparer is preparer, for the tests of the statements a connection keeps.
type Preparer = preparer
