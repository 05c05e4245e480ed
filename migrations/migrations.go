// Package migrations owns the SQL that shapes ctool's two database files: the main file the query side
// reads (main/*.sql) and the profiles file only `ctool profile` opens (profiles/*.sql). Files are named
// NNN_description.sql, applied in order, and each is recorded in ctool_meta.schema_migrations.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed main/*.sql profiles/*.sql
var files embed.FS

// Set names a group of migrations for one database file.
type Set string

const (
	Main     Set = "main"
	Profiles Set = "profiles"
)

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// List returns the migrations of a set in the order they apply.
func List(set Set) ([]Migration, error) {
	entries, err := fs.ReadDir(files, string(set))
	if err != nil {
		return nil, fmt.Errorf("migrations %s: %w", set, err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: name must be NNN_description.sql", set, name)
		}
		body, err := files.ReadFile(path.Join(string(set), name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: version, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s: version %d used twice", set, out[i].Version)
		}
	}
	return out, nil
}

// Apply runs the set's migrations that the database has not recorded yet, each in its own transaction,
// and returns the schema version reached.
func Apply(ctx context.Context, db *sql.DB, set Set) (int, error) {
	list, err := List(set)
	if err != nil {
		return 0, err
	}
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS ctool_meta;
		CREATE TABLE IF NOT EXISTS ctool_meta.schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       VARCHAR NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("create schema_migrations: %w", err)
	}
	var current int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM ctool_meta.schema_migrations`).Scan(&current); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	for _, m := range list {
		if m.Version <= current {
			continue
		}
		if err := applyOne(ctx, db, m); err != nil {
			return current, fmt.Errorf("migration %s/%s: %w", set, m.Name, err)
		}
		current = m.Version
	}
	return current, nil
}

func applyOne(ctx context.Context, db *sql.DB, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ctool_meta.schema_migrations (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
		return err
	}
	return tx.Commit()
}

// Latest is the version a fully migrated database of the set has.
func Latest(set Set) (int, error) {
	list, err := List(set)
	if err != nil || len(list) == 0 {
		return 0, err
	}
	return list[len(list)-1].Version, nil
}
