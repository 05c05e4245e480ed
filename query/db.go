// Package query owns the agent-facing side of ctool: opening the built database locked down, the SQL
// guard, running one capped SELECT, rendering its rows, and the one-at-a-time profile lookup.
package query

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// MemoryLimit bounds DuckDB's buffer memory for one query.
const MemoryLimit = "1GB"

// DB is the main database opened for agent queries: read-only, one connection, configuration locked.
type DB struct {
	db   *sql.DB
	conn *sql.Conn
}

// lockdown runs in this order: the path options must be set while external access still allows them,
// and locking the configuration comes last so that no query can undo any of it.
var lockdown = []string{
	"SET temp_directory = ''",
	"SET TimeZone = 'Asia/Tokyo'",
	"SET memory_limit = '" + MemoryLimit + "'",
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
	"SET enable_external_access = false",
	// External access off still lets SQL read the open database file, its WAL and temp directory.
	"SET disabled_filesystems = 'LocalFileSystem'",
	"SET lock_configuration = true",
}

// Open opens the main database at path for queries.
func Open(ctx context.Context, path string) (*DB, error) {
	db, err := migrations.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v", migrations.ErrNoDatabase, path, err)
	}
	d := &DB{db: db, conn: conn}
	for _, stmt := range lockdown {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			d.Close()
			return nil, fmt.Errorf("lock down the database connection (%s): %w", stmt, err)
		}
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name IN ('events', 'stores', 'products')`).Scan(&tables); err != nil || tables != 3 {
		d.Close()
		return nil, fmt.Errorf("%w: %s is not a ctool database", migrations.ErrNoDatabase, path)
	}
	return d, nil
}

// Close releases the connection and the database.
func (d *DB) Close() error {
	d.conn.Close()
	return d.db.Close()
}

// DefaultPolicy lets a query read every public dataset's table, file-name views and typed views, and
// call the product's own macros.
func DefaultPolicy() Policy {
	p := Policy{Relations: map[string]bool{}, Macros: map[string]bool{"is_open": true, "tokyo_now": true}}
	for _, d := range schema.Public() {
		for _, name := range d.Relations() {
			p.Relations[strings.ToLower(name)] = true
		}
	}
	return p
}
