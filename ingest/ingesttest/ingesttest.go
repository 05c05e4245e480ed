// Package ingesttest builds ctool databases for tests with the real ingest, so every package's tests
// query what `ctool ingest` would build.
package ingesttest

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/validation"
)

// SampleInput is the repository's input/ directory, the sample data every example is written against.
func SampleInput(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("ingesttest: cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "input")
}

// Build ingests the CSV files in input into a fresh data/ctool.duckdb under tb.TempDir() and returns its
// path; the profiles file lies beside it. The build must succeed.
func Build(tb testing.TB, input string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "data", "ctool.duckdb")
	Rebuild(tb, input, path)
	return path
}

// Rebuild ingests input into the database at path, replacing the build there, as a second `ctool
// ingest` would.
func Rebuild(tb testing.TB, input, path string) {
	tb.Helper()
	_, err := build.Run(context.Background(), input, path, build.Options{})
	var invalid *validation.InvalidError
	if errors.As(err, &invalid) {
		tb.Fatalf("ingest %s: %d problems, first: %v", input, invalid.Report.Count, invalid.Report.Problems[0])
	}
	if err != nil {
		tb.Fatalf("ingest %s: %v", input, err)
	}
}

// CopyDir copies the files of from into to, made if missing, passing each file's bytes through edit
// when it is not nil: tests change a copy of the sample input or of a build, never the original.
func CopyDir(tb testing.TB, from, to string, edit func(name string, data []byte) []byte) {
	tb.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		tb.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if edit != nil {
			b = edit(e.Name(), b)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// ProfileIDs are the profile ids of input's narrative files (narrative_data.csv and
// narrative_data_2.csv), which no answer, error or page may show.
func ProfileIDs(tb testing.TB, input string) []string {
	tb.Helper()
	var ids []string
	for _, name := range []string{"narrative_data.csv", "narrative_data_2.csv"} {
		f, err := os.Open(filepath.Join(input, name))
		if err != nil {
			tb.Fatal(err)
		}
		records, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range records[1:] {
			ids = append(ids, r[0])
		}
	}
	if len(ids) == 0 {
		tb.Fatal("no profile ids in the narrative files")
	}
	return ids
}
