package build

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/azabudai/ctool/migrations"
	_ "github.com/duckdb/duckdb-go/v2"
)

// mustOpenDB returns a migrated in-memory main database.
func mustOpenDB(tb testing.TB, set migrations.Set) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	if _, err := migrate(context.Background(), db, set); err != nil {
		tb.Fatal(err)
	}
	return db
}

// migrate runs every file of a set once, records each, and refuses a database that has a schema already.
func TestApplyRunsEveryMigrationOnFreshFilesOnly(t *testing.T) {
	for _, set := range []migrations.Set{migrations.Main, migrations.Profiles} {
		t.Run(string(set), func(t *testing.T) {
			db := mustOpenDB(t, set)
			list, _ := migrations.List(set)
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM ctool_meta.migrations`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(list) {
				t.Errorf("ctool_meta.migrations has %d rows, want %d", n, len(list))
			}
			if _, err := migrate(context.Background(), db, set); !errors.Is(err, errNotFresh) {
				t.Errorf("second migrate = %v, want errNotFresh", err)
			}
		})
	}
}

func TestMigratedDatabaseMatchesSchema(t *testing.T) {
	if err := verifyMain(context.Background(), mustOpenDB(t, migrations.Main)); err != nil {
		t.Error(err)
	}
	if err := verifyProfiles(context.Background(), mustOpenDB(t, migrations.Profiles)); err != nil {
		t.Error(err)
	}
}

func TestVerifyNoticesDrift(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	if _, err := db.Exec(`DROP VIEW products_typed; CREATE VIEW products_typed AS SELECT * FROM products`); err != nil {
		t.Fatal(err)
	}
	if err := verifyMain(context.Background(), db); err == nil {
		t.Error("verifyMain accepted a products_typed without price_yen")
	}
}

// The macros of the database are exactly those the guard lets queries call.
func TestVerifyNoticesMacroDrift(t *testing.T) {
	for _, change := range []string{"CREATE MACRO extra_macro(x) AS x + 1", "DROP MACRO tokyo_now"} {
		db := mustOpenDB(t, migrations.Main)
		if _, err := db.Exec(change); err != nil {
			t.Fatal(err)
		}
		if err := verifyMain(context.Background(), db); err == nil || !strings.Contains(err.Error(), "macros") {
			t.Errorf("after %s, verifyMain = %v, want a macro mismatch", change, err)
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
		db := mustOpenDB(t, migrations.Main)
		if _, err := db.Exec(alter); err != nil {
			t.Fatal(err)
		}
		if err := verifyMain(context.Background(), db); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
			t.Errorf("after %s, verifyMain = %v, want a NOT NULL mismatch", alter, err)
		}
	}
	db := mustOpenDB(t, migrations.Profiles)
	if _, err := db.Exec(`ALTER TABLE profiles ALTER COLUMN narrative DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if err := verifyProfiles(context.Background(), db); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Errorf("verifyProfiles = %v, want a NOT NULL mismatch", err)
	}
}
