package ingest_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/ingest/validation"
)

// An input directory that cannot be read is an error wrapping the *fs.PathError, from every entry point,
// so a caller can tell a missing directory from one it may not read. Status in particular must not
// report every source "missing" instead.
func TestUnreadableInputDir(t *testing.T) {
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(tmp, "locked")
	if err := os.Mkdir(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })

	entryPoints := map[string]func(dir string) error{
		"Validate": func(dir string) error {
			_, err := ingest.Validate(dir, validation.Options{})
			return err
		},
		"Ingest": func(dir string) error {
			_, err := build.Run(context.Background(), dir, filepath.Join(t.TempDir(), "new.duckdb"), build.Options{})
			return err
		},
		"ReadStatus": func(dir string) error {
			_, err := changes.ReadStatus(context.Background(), db, dir)
			return err
		},
	}
	for _, c := range []struct {
		name   string
		dir    string
		target error
	}{
		{"missing", filepath.Join(tmp, "nowhere"), fs.ErrNotExist},
		{"a file", file, syscall.ENOTDIR},
		{"no permission", locked, fs.ErrPermission},
	} {
		for name, f := range entryPoints {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				if c.target == fs.ErrPermission && os.Geteuid() == 0 {
					t.Skip("root reads a directory whatever its mode")
				}
				err := f(c.dir)
				var pe *fs.PathError
				if !errors.As(err, &pe) || !errors.Is(err, c.target) {
					t.Fatalf("error %v, want one wrapping an *fs.PathError that is %v", err, c.target)
				}
				if pe.Path != c.dir {
					t.Errorf("the error names %s, want %s", pe.Path, c.dir)
				}
			})
		}
	}
}
