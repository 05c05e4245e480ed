package database

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Parquet export's instance reads and writes nothing outside its own directory, cannot be given
// more, and leaves no file behind.
func TestParquetInstanceIsConfined(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	outside := filepath.Join(t.TempDir(), "outside.csv")
	if err := os.WriteFile(outside, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []ParquetColumn{{"name", "VARCHAR"}, {"n", "INTEGER"}, {"day", "DATE"}, {"tags", "VARCHAR[]"}}
	p, err := NewParquet(cols, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, stmt := range []string{
		"SELECT * FROM read_csv('" + outside + "')",
		"COPY export TO '" + filepath.Join(filepath.Dir(outside), "x.parquet") + "' (FORMAT parquet)",
		"SET enable_external_access = true",
		"SET allowed_directories = ['/']",
		"ATTACH '" + filepath.Join(filepath.Dir(outside), "other.duckdb") + "' AS other",
	} {
		_, err := p.conn.ExecContext(ctx, stmt)
		if err == nil {
			t.Errorf("%s: allowed", stmt)
			continue
		}
		// Refused for the permission, not for some other fault of the statement.
		if msg := err.Error(); !strings.Contains(msg, "Permission Error") && !strings.Contains(msg, "lock") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	if err := p.Append([]any{"a", int32(1), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), []any{"x", nil}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := p.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if !bytes.HasPrefix(out.Bytes(), []byte("PAR1")) || !bytes.HasSuffix(out.Bytes(), []byte("PAR1")) {
		t.Errorf("not a Parquet file: %d bytes", out.Len())
	}
	if entries, _ := os.ReadDir(os.Getenv("TMPDIR")); len(entries) != 0 {
		t.Errorf("left in the temporary directory: %v", entries)
	}
	if _, err := NewParquet([]ParquetColumn{{"x", "BLOB"}}, 1); err == nil {
		t.Error("a column of a type the export does not write was taken")
	}
}

// The export's instance runs under its own small memory limit (parquetMemory), not the build's.
func TestParquetMemoryLimit(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	p, err := NewParquet([]ParquetColumn{{"n", "INTEGER"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var limit, want string
	if err := p.conn.QueryRowContext(context.Background(), "SELECT current_setting('memory_limit')").Scan(&limit); err != nil {
		t.Fatal(err)
	}
	// DuckDB shows a limit in binary units: what it shows for parquetMemory itself.
	db, err := sql.Open("duckdb", "?memory_limit="+parquetMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT current_setting('memory_limit')").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if limit != want || parquetMemory != "32MB" {
		t.Errorf("the export's memory_limit is %s (parquetMemory %s, shown as %s)", limit, parquetMemory, want)
	}
}

// An export larger than parquetMemory is written whole: its rows wait in the instance's file.
func TestParquetPastItsMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB")
	}
	t.Setenv("TMPDIR", t.TempDir())
	p, err := NewParquet([]ParquetColumn{{"n", "INTEGER"}, {"text", "VARCHAR"}}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const rows = 200_000
	for i := range rows {
		// Text that does not compress to nothing: the row's number spelled through it.
		text := strings.Repeat(strconv.Itoa(i*7919)+"円 説明文 ", 20)
		if err := p.Append([]any{int32(i), text}); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	path := filepath.Join(t.TempDir(), "out.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, groups int
	if err := db.QueryRow("SELECT count(*), max(row_group_id) + 1 FROM parquet_metadata('"+path+"')").Scan(&n, &groups); err != nil {
		t.Fatal(err)
	}
	var count int
	if err := db.QueryRow("SELECT count(*) FROM '" + path + "'").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != rows || groups != rows/10_000 {
		t.Errorf("%d rows in %d row groups, want %d in %d", count, groups, rows, rows/10_000)
	}
}
