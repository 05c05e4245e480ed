package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/ingest/validation"
)

// An input file swapped after the load opened it and before validation does (the first progress
// report comes after the directory is listed and before any file is opened) must not be built: the
// load reads the file it opened, by descriptor, and validation's file is another one. Swapped for a
// link, validation refuses the link; swapped for another regular file, the build sees two different
// files and stops. Either way the database is not written.
func TestIngestSwappedInput(t *testing.T) {
	for _, swap := range []string{"symlink", "file"} {
		t.Run(swap, func(t *testing.T) {
			dir := copyInput(t, ingesttest.SampleInput(t), func(_, text string) string { return text })
			events := filepath.Join(dir, "events.csv")
			other := filepath.Join(t.TempDir(), "events.csv")
			b, err := os.ReadFile(events)
			if err != nil {
				t.Fatal(err)
			}
			// A valid file with one row fewer: a build of it would succeed on its own.
			text := string(b)
			last := strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")
			if err := os.WriteFile(other, []byte(text[:last+1]), 0o644); err != nil {
				t.Fatal(err)
			}
			swapped := false
			opts := build.Options{Progress: func(validation.Progress) {
				if swapped {
					return
				}
				swapped = true
				if err := os.Remove(events); err != nil {
					t.Error(err)
				}
				var err error
				if swap == "symlink" {
					err = os.Symlink(other, events)
				} else {
					err = os.Rename(other, events)
				}
				if err != nil {
					t.Error(err)
				}
			}}
			db := filepath.Join(t.TempDir(), "ctool.duckdb")
			sum, err := build.Run(context.Background(), dir, db, opts)
			var invalid *validation.InvalidError
			errors.As(err, &invalid)
			if !swapped {
				t.Fatal("no progress report came before the files were read")
			}
			if sum != nil {
				t.Fatal("a build was committed from a swapped input file")
			}
			switch swap {
			case "symlink":
				if invalid == nil || invalid.Report.Problems[0].Rule != validation.RuleFile {
					t.Fatalf("err %v: want the link refused", err)
				}
			case "file":
				if err == nil || !strings.Contains(err.Error(), "changed while they were read") {
					t.Fatalf("err %v, want the input files changed", err)
				}
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the database exists: %v", err)
			}
		})
	}
}
