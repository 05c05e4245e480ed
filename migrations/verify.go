package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// VerifyMain checks a migrated main database against the dataset definitions: every public dataset's
// table, file-name views and typed views exist with exactly the columns and types schema/ describes,
// and a table's NOT NULL columns are exactly the required text ones (an empty cell loads as NULL). It is the
// guard against the SQL and the definitions drifting apart.
func VerifyMain(ctx context.Context, db *sql.DB) error {
	have, err := columnsOf(ctx, db)
	if err != nil {
		return err
	}
	var problems []string
	compare := func(relation string, want []column) []string { return compareColumns(relation, have[relation], want) }
	for _, r := range schema.Relations() {
		want := make([]column, len(r.Columns))
		for i, c := range r.Columns {
			want[i] = column{name: c.Name, typ: c.Type}
		}
		problems = append(problems, compare(r.Name, want)...)
		if r.Kind == schema.TableRelation {
			problems = append(problems, compareNotNull(r.Name, have[r.Name], requiredColumns(r.Dataset))...)
		}
	}
	macros, err := macrosOf(ctx, db)
	if err != nil {
		return err
	}
	if want := schema.Macros(); fmt.Sprint(macros) != fmt.Sprint(want) {
		problems = append(problems, fmt.Sprintf("the database has macros %v, schema/ names %v", macros, want))
	}
	if len(problems) > 0 {
		return fmt.Errorf("database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
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

// VerifyProfiles checks the profiles database: source_file, then every profile column, typed.
func VerifyProfiles(ctx context.Context, db *sql.DB) error {
	want := []column{{name: "source_file", typ: "VARCHAR"}}
	for _, c := range schema.Profiles.Columns {
		want = append(want, column{name: c.Name, typ: c.SQLType(true)})
	}
	have, err := columnsOf(ctx, db)
	if err != nil {
		return err
	}
	table := schema.Profiles.Table
	problems := compareColumns(table, have[table], want)
	problems = append(problems, compareNotNull(table, have[table], append([]string{"source_file"}, requiredColumns(schema.Profiles)...))...)
	if len(problems) > 0 {
		return fmt.Errorf("profiles database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
}

type column struct {
	name, typ string
	notNull   bool
}

func (c column) String() string { return c.name + " " + c.typ }

// requiredColumns lists the columns of a dataset that are never NULL: those whose cells may not be
// empty, less the typed ones, whose cell may be one that cannot be typed (a warning) and loads as NULL.
func requiredColumns(d *schema.Dataset) []string {
	var names []string
	for _, c := range d.Columns {
		if c.Required && c.SQLType(d.Private) == "VARCHAR" {
			names = append(names, c.Name)
		}
	}
	return names
}

// compareNotNull checks that exactly the named columns of a table are NOT NULL.
func compareNotNull(relation string, got []column, want []string) []string {
	var have []string
	for _, c := range got {
		if c.notNull {
			have = append(have, c.name)
		}
	}
	if fmt.Sprint(have) != fmt.Sprint(want) {
		return []string{fmt.Sprintf("%s has NOT NULL columns %v, schema/ requires %v", relation, have, want)}
	}
	return nil
}

// columnsOf reads every relation's columns of the main schema in one query.
func columnsOf(ctx context.Context, db *sql.DB) (map[string][]column, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable = 'NO' FROM information_schema.columns
		WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`)
	if err != nil {
		return nil, fmt.Errorf("read the database's columns: %w", err)
	}
	defer rows.Close()
	have := map[string][]column{}
	for rows.Next() {
		var relation string
		var c column
		if err := rows.Scan(&relation, &c.name, &c.typ, &c.notNull); err != nil {
			return nil, err
		}
		have[relation] = append(have[relation], c)
	}
	return have, rows.Err()
}

func compareColumns(relation string, got, want []column) []string {
	if len(got) == 0 {
		return []string{fmt.Sprintf("%s is missing", relation)}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return []string{fmt.Sprintf("%s has columns %v, schema/ says %v", relation, got, want)}
	}
	return nil
}
