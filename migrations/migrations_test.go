package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// mustOpenDB returns a migrated in-memory main database.
func mustOpenDB(tb testing.TB, set Set) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := Apply(context.Background(), db, set); err != nil {
		tb.Fatal(err)
	}
	return db
}

// Apply runs every file of a set once, records each, and refuses a database that has a schema already.
func TestApplyRunsEveryMigrationOnFreshFilesOnly(t *testing.T) {
	for _, set := range []Set{Main, Profiles} {
		t.Run(string(set), func(t *testing.T) {
			db := mustOpenDB(t, set)
			list, _ := List(set)
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM ctool_meta.migrations`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(list) {
				t.Errorf("ctool_meta.migrations has %d rows, want %d", n, len(list))
			}
			if _, err := Apply(context.Background(), db, set); !errors.Is(err, ErrNotFresh) {
				t.Errorf("second Apply = %v, want ErrNotFresh", err)
			}
		})
	}
}

// schemaHistory pins each set's schema version to the SQL that defines it: the sha256 of its files'
// names and contents, in order. A change to the SQL fails this test until it is recorded here: a
// change a reader of a build could tell gets the next version (and versions in migrations.go); one it
// could not (a comment, a reordering) replaces the hash of the current version, as does any change
// before that version is released.
var schemaHistory = map[Set][]struct {
	version int
	sha256  string
}{
	Main: {
		{7, "9d967b560a82939ffe139cf436748bf3e28e25a3ea77c22dd51bc3520ec10522"},
		{8, "6caea075229282ec0451fe8e5ba5f3f20dea0d18ac144b3aa25364369fef7eed"},
		{9, "08c22364ca0bf3b279c86069d30e80854930b1fa8eedb754c636b7548d1053b9"},
	},
	Profiles: {
		{1, "b94a18f84f61eb294efa1675f3ac829e199310a1a7507e3e3e266f1e7a69e7d4"},
		{2, "d1a4aecfac4f1f11d0e958ddf1ab5dd84bb3e55cd543f308c450e8661818405c"},
	},
}

func TestSchemaVersionFollowsTheSQL(t *testing.T) {
	for set, history := range schemaHistory {
		list, err := List(set)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, m := range list {
			fmt.Fprintf(h, "%s\x00%s\x00", m.Name, m.SQL)
		}
		sum := hex.EncodeToString(h.Sum(nil))
		last := history[len(history)-1]
		if last.sha256 != sum {
			t.Errorf("%s: the SQL changed (sha256 %s, recorded %s for version %d): record it in schemaHistory, with a new version if builds differ", set, sum, last.sha256, last.version)
		}
		if Version(set) != last.version {
			t.Errorf("%s: Version = %d, schemaHistory ends at %d", set, Version(set), last.version)
		}
	}
}

func TestMigratedDatabaseMatchesSchema(t *testing.T) {
	if err := VerifyMain(context.Background(), mustOpenDB(t, Main)); err != nil {
		t.Error(err)
	}
	if err := VerifyProfiles(context.Background(), mustOpenDB(t, Profiles)); err != nil {
		t.Error(err)
	}
}

func TestVerifyNoticesDrift(t *testing.T) {
	db := mustOpenDB(t, Main)
	if _, err := db.Exec(`DROP VIEW products_typed; CREATE VIEW products_typed AS SELECT * FROM products`); err != nil {
		t.Fatal(err)
	}
	if err := VerifyMain(context.Background(), db); err == nil {
		t.Error("VerifyMain accepted a products_typed without price_yen")
	}
}

// The macros of the database are exactly those the guard lets queries call.
func TestVerifyNoticesMacroDrift(t *testing.T) {
	for _, change := range []string{"CREATE MACRO extra_macro(x) AS x + 1", "DROP MACRO tokyo_now"} {
		db := mustOpenDB(t, Main)
		if _, err := db.Exec(change); err != nil {
			t.Fatal(err)
		}
		if err := VerifyMain(context.Background(), db); err == nil || !strings.Contains(err.Error(), "macros") {
			t.Errorf("after %s, VerifyMain = %v, want a macro mismatch", change, err)
		}
	}
}

// Only required columns are NOT NULL: an empty cell loads as NULL, so a NOT NULL optional column would
// refuse valid data, and a nullable required one would hide a load that lost values.
func TestVerifyNoticesNotNullDrift(t *testing.T) {
	for _, alter := range []string{
		`ALTER TABLE stores ALTER COLUMN parking SET NOT NULL`,
		`ALTER TABLE events ALTER COLUMN event_name DROP NOT NULL`,
	} {
		db := mustOpenDB(t, Main)
		if _, err := db.Exec(alter); err != nil {
			t.Fatal(err)
		}
		if err := VerifyMain(context.Background(), db); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
			t.Errorf("after %s, VerifyMain = %v, want a NOT NULL mismatch", alter, err)
		}
	}
	db := mustOpenDB(t, Profiles)
	if _, err := db.Exec(`ALTER TABLE profiles ALTER COLUMN narrative DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if err := VerifyProfiles(context.Background(), db); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Errorf("VerifyProfiles = %v, want a NOT NULL mismatch", err)
	}
}
