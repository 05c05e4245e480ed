package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// ErrNoDatabase means a database file is missing or cannot be read as a ctool database.
var ErrNoDatabase = errors.New("no usable ctool database")

// Keys of the ctool_meta.build table, which records what a build was made of.
const (
	BuildID       = "build_id"
	BuildTime     = "built_at"
	BuildProfiles = "profiles_file"
	BuildSchema   = "schema_version"
)

// OpenReadOnly opens an existing database file without ever creating or changing it, on one connection.
func OpenReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoDatabase, path)
	}
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoDatabase, path, err)
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrNoDatabase, path, err)
	}
	return db, nil
}

// BuildInfo reads a database's ctool_meta.build table.
func BuildInfo(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM ctool_meta.build`)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDatabase, err)
	}
	defer rows.Close()
	info := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		info[k] = v
	}
	return info, rows.Err()
}
