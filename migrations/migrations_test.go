package migrations

import (
	"context"
	"database/sql"
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

func TestApplyRecordsEveryMigrationOnce(t *testing.T) {
	for _, set := range []Set{Main, Profiles} {
		t.Run(string(set), func(t *testing.T) {
			db := mustOpenDB(t, set)
			latest, err := Latest(set)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Apply(context.Background(), db, set)
			if err != nil {
				t.Fatalf("second Apply: %v", err)
			}
			if again != latest {
				t.Errorf("version after second Apply = %d, want %d", again, latest)
			}
			list, _ := List(set)
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM ctool_meta.schema_migrations`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != len(list) {
				t.Errorf("schema_migrations has %d rows, want %d", n, len(list))
			}
		})
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
