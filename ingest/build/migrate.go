package build

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/azabudai/ctool/migrations"
)

// errNotFresh is migrate's error for a database that already holds a schema.
var errNotFresh = errors.New("migrations run on a fresh database file only")

// migrate runs every migration of the set (migrations.List), in order, on a fresh database, each in
// its own transaction and recorded in ctool_meta.migrations, and returns the set's schema version. A
// database that already records migrations is refused: the files define the current schema from
// nothing, not a step from an earlier one.
func migrate(ctx context.Context, db *sql.DB, set migrations.Set) (int, error) {
	list, err := migrations.List(set)
	if err != nil {
		return 0, err
	}
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM duckdb_tables()
		WHERE schema_name = 'ctool_meta' AND table_name = 'migrations'`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read the database's tables: %w", err)
	}
	if exists {
		return 0, fmt.Errorf("migrations %s: %w", set, errNotFresh)
	}
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS ctool_meta;
		CREATE TABLE ctool_meta.migrations (
			step       INTEGER PRIMARY KEY,
			name       VARCHAR NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("create ctool_meta.migrations: %w", err)
	}
	for _, m := range list {
		if err := applyOne(ctx, db, m); err != nil {
			return 0, fmt.Errorf("migration %s/%s: %w", set, m.Name, err)
		}
	}
	return migrations.Version(set), nil
}

func applyOne(ctx context.Context, db *sql.DB, m migrations.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ctool_meta.migrations (step, name) VALUES (?, ?)`, m.Step, m.Name); err != nil {
		return err
	}
	return tx.Commit()
}
