package migrations_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// viewsVersion is the last migration whose typed relations were views computed on every query.
const viewsVersion = 6

// TestStoredRelationsEqualTheViews builds inputs with ingest and checks that every typed relation
// of the build has the columns, types and rows, in order, that the view definitions of migrations
// 1 to 6 compute from the same tables.
func TestStoredRelationsEqualTheViews(t *testing.T) {
	sample := ingesttest.SampleInput(t)
	crlf := filepath.Join(t.TempDir(), "crlf")
	// CRLF line ends, inside quoted cells too: the load rewrites those cells after it, before Fill.
	ingesttest.CopyDir(t, sample, crlf, func(_ string, b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	})
	for name, input := range map[string]string{"sample": sample, "crlf": crlf} {
		t.Run(name, func(t *testing.T) {
			build := ingesttest.Build(t, input)
			db := viewsOnly(t)
			if _, err := db.Exec(`ATTACH '` + strings.ReplaceAll(build, "'", "''") + `' AS build (READ_ONLY)`); err != nil {
				t.Fatal(err)
			}
			for _, r := range schema.Relations() {
				if r.Kind == schema.TableRelation {
					if _, err := db.Exec(fmt.Sprintf(`INSERT INTO main.%q SELECT * FROM build.main.%q`, r.Name, r.Name)); err != nil {
						t.Fatal(err)
					}
				}
			}
			var typed int
			for _, r := range schema.Relations() {
				if r.Kind != schema.ViewRelation {
					continue
				}
				typed++
				if got, want := describe(t, db, "build.main."+r.Name), describe(t, db, "main."+r.Name); got != want {
					t.Errorf("%s: the build has columns\n%s\nthe view computes\n%s", r.Name, got, want)
				}
				got, want := rowsAsJSON(t, db, "build.main."+r.Name), rowsAsJSON(t, db, "main."+r.Name)
				if len(want) == 0 {
					t.Errorf("%s: the view computes no rows from %s; the comparison proves nothing", r.Name, name)
				}
				if !slices.Equal(got, want) {
					i := firstDifference(got, want)
					t.Errorf("%s: the build holds %d rows, the view computes %d; row %d is\n%s\nnot\n%s",
						r.Name, len(got), len(want), i, at(got, i), at(want, i))
				}
			}
			if typed < 5 {
				t.Errorf("only %d typed relations compared", typed)
			}
		})
	}
}

// viewsOnly is an in-memory database migrated only as far as viewsVersion: the typed relations are
// the original views.
func viewsOnly(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	list, err := migrations.List(migrations.Main)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec(`CREATE SCHEMA ctool_meta`); err != nil {
		tb.Fatal(err)
	}
	for _, m := range list {
		if m.Version > viewsVersion {
			break
		}
		if _, err := db.Exec(m.SQL); err != nil {
			tb.Fatalf("%s: %v", m.Name, err)
		}
	}
	return db
}

// describe is a relation's column names and types as the driver and DuckDB's DESCRIBE (which names a
// column's collation) give them, one per line.
func describe(tb testing.TB, db *sql.DB, relation string) string {
	tb.Helper()
	rows, err := db.Query(`SELECT * FROM ` + relation + ` LIMIT 0`)
	if err != nil {
		tb.Fatal(err)
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		tb.Fatal(err)
	}
	var lines []string
	for _, c := range types {
		lines = append(lines, c.Name()+" "+c.DatabaseTypeName())
	}
	return strings.Join(lines, "\n") + "\n" + strings.Join(rowsOf(tb, db, `SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM `+relation+`)`), "\n")
}

// rowsAsJSON is every row of a relation as DuckDB writes it as JSON, in the order a scan returns.
func rowsAsJSON(tb testing.TB, db *sql.DB, relation string) []string {
	tb.Helper()
	return rowsOf(tb, db, `SELECT CAST(to_json(r) AS VARCHAR) FROM `+relation+` r`)
}

// rowsOf is a one-column query's rows.
func rowsOf(tb testing.TB, db *sql.DB, query string) []string {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func at(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return "(no row)"
}
