// Package migrations defines what ctool's two database files hold: the main file the query side reads
// (main/*.sql) and the profiles file only `ctool profile` opens (profiles/*.sql). Every build is a
// fresh file, so the files of a set are one definition of the current schema, each relation defined
// once: named NNN_description.sql, applied in order to an empty database, each recorded in
// ctool_meta.migrations. A step whose SQL Go writes (generated) takes its place in that order and is
// recorded alike. What a build holds is named by its schema version (Version), not by the files.
//
// The package only defines: the SQL, the values Go computes for the stored relations (derive.go), as
// pure functions of the cells they read, and what a built file must match (verify.go). It opens no
// database and runs no statement: ingest/build, the one writer of a build, applies the SQL, reads the
// cells, writes the computed rows and checks the result.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/schema/fold"
)

//go:embed main/*.sql profiles/*.sql
var files embed.FS

// Set names a group of migrations for one database file.
type Set string

const (
	Main     Set = "main"
	Profiles Set = "profiles"
)

// versions are the sets' schema versions: what a build of the set holds (its relations, their columns
// and what the columns mean), as `ctool status` and `ctool ingest` report it and the build records it.
// The number goes up with every change a reader of a build could tell, and never down, so a build made
// by an older ctool reads as an older schema. It is not a file's number: the files are rewritten to
// define the current schema directly. TestSchemaVersionFollowsTheSQL fails when the SQL changes and
// the history in its test does not.
//
// Main: 1 to 7 were the numbers of its migration files while each changed the relations of the one
// before (7: the typed relations that parse JSON and dates stored at ingest); 8 stores the prices of
// products_typed at ingest, keeps an empty flag NULL, unknown, where 7 made it false, and reads the
// stores' offers from their text (stores_typed.vegan_available and the rest) and the store an event's
// venue names (events_typed.store_id, store_name); 9 adds the macro fold(text), reads opening hours
// written as text and in late-night notation (26:00) into store_hours with a day 'holiday' and is_open
// following Japan's public holidays (ctool_meta.public_holidays), keeps a cell that cannot be typed as
// written with its typed values NULL (ctool_meta.unknown_cells), and adds price_max_yen, the offers'
// caveats (stores_typed.vegan_caveat and the rest) and events_typed.weekdays.
//
// Profiles: 2 lets age and visits be NULL, for a cell that cannot be read as a number.
var versions = map[Set]int{Main: 9, Profiles: 2}

// generated are the steps whose SQL Go writes, so that a rule Go also applies has one definition:
// fold() is fold.Fold in SQL. Each is named like a file, without ".sql", since none exists.
var generated = map[Set][]func() Migration{
	Main: {func() Migration { return Migration{Step: 5, Name: "005_fold_macro", SQL: fold.MacroSQL()} }},
}

// Migration is one numbered step: an SQL file, or SQL that Go writes (generated).
type Migration struct {
	Step int // its place in the order, from its name
	Name string
	SQL  string
}

// List returns the migrations of a set in the order they apply: its files and its generated steps.
func List(set Set) ([]Migration, error) {
	entries, err := fs.ReadDir(files, string(set))
	if err != nil {
		return nil, fmt.Errorf("migrations %s: %w", set, err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		step, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: name must be NNN_description.sql", set, name)
		}
		body, err := files.ReadFile(path.Join(string(set), name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Step: step, Name: name, SQL: string(body)})
	}
	for _, g := range generated[set] {
		out = append(out, g())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	for i := 1; i < len(out); i++ {
		if out[i].Step == out[i-1].Step {
			return nil, fmt.Errorf("migrations %s: number %d used twice", set, out[i].Step)
		}
	}
	return out, nil
}

// Version is the schema version a build of the set made by this ctool has.
func Version(set Set) int { return versions[set] }
