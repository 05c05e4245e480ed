package console

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// The console's Parquet writer takes the typed relations' values, refuses one of the wrong type, and
// leaves no file behind, whether the export ends or fails.
func TestParquetWriterLeavesNothing(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	cols := []column{{Name: "name", Type: "VARCHAR"}, {Name: "n", Type: "INTEGER"}, {Name: "day", Type: "DATE"}, {Name: "tags", Type: "VARCHAR[]"}}
	p := newParquet(&bytes.Buffer{}, cols).(*parquetWriter)
	if p.err != nil {
		t.Fatal(p.err)
	}
	if err := p.write([]any{"a", int32(1), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), []any{"x", nil}}); err != nil {
		t.Fatal(err)
	}
	if err := p.write([]any{"b", "not a number", nil, nil}); err == nil || !strings.Contains(err.Error(), "parquet: n") {
		t.Fatalf("a value of the wrong type: %v", err)
	}
	if err := p.close(); err == nil {
		t.Error("close after a failed write succeeded")
	}
	if entries, _ := os.ReadDir(os.Getenv("TMPDIR")); len(entries) != 0 {
		t.Errorf("left in the temporary directory after a failed export: %v", entries)
	}

	var out bytes.Buffer
	p = newParquet(&out, cols).(*parquetWriter)
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
		t.Errorf("left in the temporary directory: %v", entries)
	}
}
