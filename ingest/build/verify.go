package build

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/azabudai/ctool/migrations"
)

// verifyMain checks a migrated main database against the dataset definitions (migrations.CheckMain):
// its relations' columns and its macros.
func verifyMain(ctx context.Context, db *sql.DB) error {
	have, err := columnsOf(ctx, db)
	if err != nil {
		return err
	}
	macros, err := macrosOf(ctx, db)
	if err != nil {
		return err
	}
	return migrations.CheckMain(have, macros)
}

// verifyProfiles checks the profiles database (migrations.CheckProfiles).
func verifyProfiles(ctx context.Context, db *sql.DB) error {
	have, err := columnsOf(ctx, db)
	if err != nil {
		return err
	}
	return migrations.CheckProfiles(have)
}

// macrosOf lists the macros the migrations created, sorted: the guard lets queries call exactly
// schema.Macros, so the two must name the same ones.
func macrosOf(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT function_name FROM duckdb_functions()
		WHERE function_type IN ('macro', 'table_macro') AND NOT internal AND schema_name = 'main' ORDER BY function_name`)
	if err != nil {
		return nil, fmt.Errorf("read the database's macros: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// columnsOf reads every relation's columns of the main schema in one query.
func columnsOf(ctx context.Context, db *sql.DB) (map[string][]migrations.Column, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable = 'NO' FROM information_schema.columns
		WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`)
	if err != nil {
		return nil, fmt.Errorf("read the database's columns: %w", err)
	}
	defer rows.Close()
	have := map[string][]migrations.Column{}
	for rows.Next() {
		var relation string
		var c migrations.Column
		if err := rows.Scan(&relation, &c.Name, &c.Type, &c.NotNull); err != nil {
			return nil, err
		}
		have[relation] = append(have[relation], c)
	}
	return have, rows.Err()
}
