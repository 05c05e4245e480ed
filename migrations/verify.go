package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// VerifyMain checks a migrated main database against the dataset definitions: every public dataset's
// table, file-name views and typed views exist with exactly the columns and types schema/ describes.
// It is the guard against the SQL and the definitions drifting apart.
func VerifyMain(ctx context.Context, db *sql.DB) error {
	var problems []string
	for _, d := range schema.Public() {
		base := make([]column, len(d.Columns))
		for i, c := range d.Columns {
			base[i] = column{c.Name, c.SQLType(false)}
		}
		problems = append(problems, compare(ctx, db, d.Table, base)...)
		for _, alias := range d.Aliases {
			problems = append(problems, compare(ctx, db, alias, base)...)
		}
		for _, v := range d.Views {
			problems = append(problems, compare(ctx, db, v.Name, viewColumns(d, v))...)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
}

// VerifyProfiles checks the profiles database: source_file, then every profile column, typed.
func VerifyProfiles(ctx context.Context, db *sql.DB) error {
	want := []column{{"source_file", "VARCHAR"}}
	for _, c := range schema.Profiles.Columns {
		want = append(want, column{c.Name, c.SQLType(true)})
	}
	if problems := compare(ctx, db, schema.Profiles.Table, want); len(problems) > 0 {
		return fmt.Errorf("profiles database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
}

type column struct{ name, typ string }

// viewColumns is what a view must carry: for an extending view, the base table's columns (retyped where
// the view says so) followed by the added ones.
func viewColumns(d *schema.Dataset, v schema.View) []column {
	var out []column
	declared := map[string]schema.ViewColumn{}
	for _, c := range v.Columns {
		declared[c.Name] = c
	}
	if v.Extends != "" {
		for _, c := range d.Columns {
			if vc, ok := declared[c.Name]; ok {
				out = append(out, column{c.Name, vc.Type})
				delete(declared, c.Name)
				continue
			}
			out = append(out, column{c.Name, c.SQLType(false)})
		}
	}
	for _, c := range v.Columns {
		if _, ok := declared[c.Name]; ok {
			out = append(out, column{c.Name, c.Type})
		}
	}
	return out
}

func compare(ctx context.Context, db *sql.DB, relation string, want []column) []string {
	rows, err := db.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position`, relation)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", relation, err)}
	}
	defer rows.Close()
	var got []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			return []string{fmt.Sprintf("%s: %v", relation, err)}
		}
		got = append(got, c)
	}
	if err := rows.Err(); err != nil {
		return []string{fmt.Sprintf("%s: %v", relation, err)}
	}
	if len(got) == 0 {
		return []string{fmt.Sprintf("%s is missing", relation)}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return []string{fmt.Sprintf("%s has columns %v, schema/ says %v", relation, got, want)}
	}
	return nil
}
