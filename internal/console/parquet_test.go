package console

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Parquet export's instance reads and writes nothing outside its own directory, cannot be given
// more, and leaves no file behind, whether the export ends or fails.
func TestParquetInstanceIsConfined(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	outside := filepath.Join(t.TempDir(), "outside.csv")
	if err := os.WriteFile(outside, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := []column{{Name: "name", Type: "VARCHAR"}, {Name: "n", Type: "INTEGER"}, {Name: "day", Type: "DATE"}, {Name: "tags", Type: "VARCHAR[]"}}
	p := newParquet(&bytes.Buffer{}, cols).(*parquetWriter)
	if p.err != nil {
		t.Fatal(p.err)
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
	dir := p.dir
	if err := p.write([]any{"a", int32(1), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), []any{"x", nil}}); err != nil {
		t.Fatal(err)
	}
	if err := p.write([]any{"b", "not a number", nil, nil}); err == nil || !strings.Contains(err.Error(), "parquet: n") {
		t.Fatalf("a value of the wrong type: %v", err)
	}
	if err := p.close(); err == nil {
		t.Error("close after a failed write succeeded")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the export's directory is left after a failed export: %v", err)
	}

	var out bytes.Buffer
	p = newParquet(&out, cols).(*parquetWriter)
	dir = p.dir
	if err := p.write([]any{"a", int64(2), nil, []any{}}); err != nil {
		t.Fatal(err)
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("PAR1")) || !bytes.HasSuffix(out.Bytes(), []byte("PAR1")) {
		t.Errorf("not a Parquet file: %d bytes", out.Len())
	}
	if entries, _ := os.ReadDir(os.Getenv("TMPDIR")); len(entries) != 0 {
		t.Errorf("left in the temporary directory: %v (the export's was %s)", entries, dir)
	}
}
