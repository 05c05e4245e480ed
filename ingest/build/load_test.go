package build_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2"
)

// copyInput copies the CSV files of dir into a new directory, passing each file's text through edit.
func copyInput(tb testing.TB, dir string, edit func(name, text string) string) string {
	tb.Helper()
	out := tb.TempDir()
	ingesttest.CopyDir(tb, dir, out, func(name string, b []byte) []byte {
		if edit == nil {
			return b
		}
		return []byte(edit(name, string(b)))
	})
	return out
}

// openMain opens a built main file read-only with the driver alone, for tests that look at what
// ingest wrote with SQL of their own.
func openMain(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// countOf is the count a reader gets from one of a build's files, on a call's connection.
func countOf(tb testing.TB, f *database.File, query guard.SQL) int64 {
	tb.Helper()
	conn, err := f.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	var n int64
	if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

func queryInt(tb testing.TB, db *sql.DB, query string) int64 {
	tb.Helper()
	var n int64
	if err := db.QueryRow(query).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

// The seeds' JSON queries run over every row: an empty JSON cell is NULL, never an empty string, which
// json_extract would reject, failing the whole query.
func TestJSONQueriesOverEmptyCells(t *testing.T) {
	db := openMain(t, ingesttest.Build(t, ingesttest.SampleInput(t)))
	if n := queryInt(t, db, `SELECT count(*) FROM stores WHERE parking IS NULL`); n == 0 {
		t.Fatal("the sample data has no store with an empty parking cell; the test would prove nothing")
	}
	for _, q := range []string{
		`SELECT json_extract(parking, '$.available') FROM stores`,
		`SELECT json_extract(kids_info, '$.kids_menu'), json_extract(private_room, '$.capacity') FROM stores`,
		`SELECT json_extract_string(location, '$.venue'), json_extract(cost, '$.is_free') FROM events`,
		`SELECT CAST(target_audience AS JSON) FROM stores`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Errorf("%s: %v", q, err)
		}
		rows.Close()
		if n == 0 {
			t.Errorf("%s returned no rows", q)
		}
	}
}

// Every empty cell of the input, quoted ("") or not, is NULL in the raw tables, and every other cell is
// there: the raw tables hold no empty string at all.
func TestEmptyCellsAreNull(t *testing.T) {
	// Quote the empty error_message of every successful store.
	quoted := 0
	input := copyInput(t, ingesttest.SampleInput(t), func(name, text string) string {
		if !strings.HasPrefix(name, "filtered_store_data") {
			return text
		}
		quoted = strings.Count(text, ",success,\n")
		return strings.ReplaceAll(text, ",success,\n", ",success,\"\"\n")
	})
	if quoted == 0 {
		t.Fatal("no store line ends with an empty error_message; the test would prove nothing about quoted cells")
	}
	db := openMain(t, ingesttest.Build(t, input))
	for _, d := range schema.Public() {
		var file string
		entries, _ := os.ReadDir(input)
		for _, e := range entries {
			if d.MatchesFile(e.Name()) {
				file = filepath.Join(input, e.Name())
			}
		}
		header, records := readCSV(t, file)
		for i, name := range header {
			filled := int64(0)
			for _, rec := range records {
				if rec[i] != "" {
					filled++
				}
			}
			col := `"` + name + `"`
			got := queryInt(t, db, `SELECT count(`+col+`) FROM `+d.Table)
			empty := queryInt(t, db, `SELECT count(*) FILTER (WHERE `+col+` = '') FROM `+d.Table)
			null := queryInt(t, db, `SELECT count(*) FILTER (WHERE `+col+` IS NULL) FROM `+d.Table)
			if got != filled || empty != 0 || null != int64(len(records))-filled {
				t.Errorf("%s.%s: %d values, %d '' and %d NULL; the file has %d non-empty cells in %d rows",
					d.Table, name, got, empty, null, filled, len(records))
			}
		}
	}
}

func readCSV(tb testing.TB, path string) ([]string, [][]string) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))).ReadAll()
	if err != nil || len(records) == 0 {
		tb.Fatalf("%s: %v", path, err)
	}
	return records[0], records[1:]
}
