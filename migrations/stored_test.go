package migrations_test

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/price"
)

// TestStoredRelationsEqualTheirDefinitions builds inputs with ingest and checks that every stored
// typed relation of the build has the columns, types and rows, in order, that its definition in
// ctool_derive computes from the build's tables as they were finally stored.
func TestStoredRelationsEqualTheirDefinitions(t *testing.T) {
	sample := ingesttest.SampleInput(t)
	crlf := filepath.Join(t.TempDir(), "crlf")
	// CRLF line ends, inside quoted cells too: the load rewrites those cells after it, before Fill.
	ingesttest.CopyDir(t, sample, crlf, func(_ string, b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	})
	for name, input := range map[string]string{"sample": sample, "crlf": crlf} {
		t.Run(name, func(t *testing.T) {
			db, err := sql.Open("duckdb", ingesttest.Build(t, input)+"?access_mode=read_only")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			targets := rowsOf(t, db, `SELECT target FROM ctool_meta.derived ORDER BY position`)
			var stored int
			for _, r := range schema.Relations() {
				if r.Kind != schema.ViewRelation || !slices.Contains(targets, "main."+r.Name) {
					continue
				}
				stored++
				if got, want := describe(t, db, "main."+r.Name), describe(t, db, "ctool_derive."+r.Name); got != want {
					t.Errorf("%s: the build has columns\n%s\nits definition computes\n%s", r.Name, got, want)
				}
				got, want := rowsAsJSON(t, db, "main."+r.Name), rowsAsJSON(t, db, "ctool_derive."+r.Name)
				if len(want) == 0 {
					t.Errorf("%s: the definition computes no rows from %s; the comparison proves nothing", r.Name, name)
				}
				if !slices.Equal(got, want) {
					i := firstDifference(got, want)
					t.Errorf("%s: the build holds %d rows, the definition computes %d; row %d is\n%s\nnot\n%s",
						r.Name, len(got), len(want), i, at(got, i), at(want, i))
				}
			}
			if stored != len(targets) || stored < 4 {
				t.Errorf("%d stored typed relations compared, ctool_meta.derived lists %v", stored, targets)
			}
			// products_typed joins the stored prices by position: each must be its own row's.
			rows, err := db.Query(`SELECT product_description, price_yen FROM products_typed`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var n, priced int
			for rows.Next() {
				var d sql.NullString
				var got sql.NullInt32
				if err := rows.Scan(&d, &got); err != nil {
					t.Fatal(err)
				}
				n++
				if got.Valid {
					priced++
				}
				if yen, ok := price.Yen(d.String); ok != got.Valid || yen != got.Int32 {
					t.Errorf("products_typed row %d: price_yen %v for %q, which has %d, %v", n, got, d.String, yen, ok)
				}
			}
			if rows.Err() != nil || priced == 0 {
				t.Errorf("products_typed: %d rows, %d priced, %v", n, priced, rows.Err())
			}
		})
	}
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
