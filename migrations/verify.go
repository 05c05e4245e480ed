package migrations

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// What a migrated file must hold, by the dataset definitions of schema/: the guard against the SQL and
// the definitions drifting apart. The build reads a new file's columns and macros and checks them here
// before it publishes the file.

// Column is a relation's column as the database describes it.
type Column struct {
	Name, Type string
	NotNull    bool
}

func (c Column) String() string { return c.Name + " " + c.Type }

// CheckMain checks a migrated main database, given every relation's columns in order (have, by
// relation name) and its macros, sorted: every public dataset's table, file-name views and typed views
// exist with exactly the columns and types schema/ describes, a table's NOT NULL columns are exactly
// the required text ones (an empty cell loads as NULL), and the macros are exactly those the guard lets
// queries call (schema.Macros).
func CheckMain(have map[string][]Column, macros []string) error {
	var problems []string
	for _, r := range schema.Relations() {
		want := make([]Column, len(r.Columns))
		for i, c := range r.Columns {
			want[i] = Column{Name: c.Name, Type: c.Type}
		}
		problems = append(problems, compareColumns(r.Name, have[r.Name], want)...)
		if r.Kind == schema.TableRelation {
			problems = append(problems, compareNotNull(r.Name, have[r.Name], requiredColumns(r.Dataset))...)
		}
	}
	if want := schema.Macros(); fmt.Sprint(macros) != fmt.Sprint(want) {
		problems = append(problems, fmt.Sprintf("the database has macros %v, schema/ names %v", macros, want))
	}
	if len(problems) > 0 {
		return fmt.Errorf("database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
}

// CheckProfiles checks a migrated profiles database, given its relations' columns: source_file, then
// every profile column, typed.
func CheckProfiles(have map[string][]Column) error {
	want := []Column{{Name: "source_file", Type: "VARCHAR"}}
	for _, c := range schema.Profiles.Columns {
		want = append(want, Column{Name: c.Name, Type: c.SQLType(true)})
	}
	table := schema.Profiles.Table
	problems := compareColumns(table, have[table], want)
	problems = append(problems, compareNotNull(table, have[table], append([]string{"source_file"}, requiredColumns(schema.Profiles)...))...)
	if len(problems) > 0 {
		return fmt.Errorf("profiles database does not match schema/: %s", strings.Join(problems, "; "))
	}
	return nil
}

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
func compareNotNull(relation string, got []Column, want []string) []string {
	var have []string
	for _, c := range got {
		if c.NotNull {
			have = append(have, c.Name)
		}
	}
	if fmt.Sprint(have) != fmt.Sprint(want) {
		return []string{fmt.Sprintf("%s has NOT NULL columns %v, schema/ requires %v", relation, have, want)}
	}
	return nil
}

func compareColumns(relation string, got, want []Column) []string {
	if len(got) == 0 {
		return []string{fmt.Sprintf("%s is missing", relation)}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return []string{fmt.Sprintf("%s has columns %v, schema/ says %v", relation, got, want)}
	}
	return nil
}
