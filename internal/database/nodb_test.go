package database

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
)

// Whatever the user's rights (the suite may run as root, which reads any file), the cause an open
// failed with stays matchable beside ErrNoDatabase, and the message names it once.
func TestNoDatabaseKeepsItsCause(t *testing.T) {
	err := noDatabase("data/x.duckdb", "cannot be read: "+pathErr(&fs.PathError{Op: "open", Path: "data/x.duckdb", Err: fs.ErrPermission}), fs.ErrPermission)
	var ce *fault.Error
	if !errors.As(err, &ce) || ce.Kind != fault.KindNoDatabase || !errors.Is(err, ErrNoDatabase) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("got %v, want no_database matching ErrNoDatabase and fs.ErrPermission", err)
	}
	if want := "no usable ctool database: data/x.duckdb cannot be read: permission denied"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	if err := noDatabase("p", "is not a ctool database", nil); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("without a cause: %v does not match ErrNoDatabase", err)
	}
}

// A directory and a file that is not DuckDB's (a CSV given to --db) say what they are and what to do,
// not "does not exist" or DuckDB's catalog error.
func TestOpenSaysWhatThePathIs(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "stores.csv")
	if err := os.WriteFile(csv, []byte("store_id,store_name\nS1,カフェ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.duckdb")
	if err := os.WriteFile(short, []byte("DUCK"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, message, hint string }{
		{dir, dir + " is a directory, not a build file", "--db " + filepath.Join(dir, "ctool.duckdb")},
		{csv, csv + " is not a DuckDB database file", "it is a CSV file: ctool ingest --input " + dir},
		{short, short + " is not a DuckDB database file", NoDatabaseHint},
	} {
		_, err := Open(context.Background(), tc.path)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Kind != fault.KindNoDatabase {
			t.Fatalf("%s: %v, want a no_database error", tc.path, err)
		}
		if !strings.HasSuffix(fe.Message, tc.message) || !strings.Contains(fe.Hint, tc.hint) {
			t.Errorf("%s: %q (hint %q), want %q and a hint with %q", tc.path, fe.Message, fe.Hint, tc.message, tc.hint)
		}
	}
}
