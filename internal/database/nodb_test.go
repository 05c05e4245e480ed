package database

import (
	"errors"
	"io/fs"
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
