package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/azabudai/ctool/schema"
)

// input is an entry of the input directory that belongs to a dataset.
type input struct {
	dataset *schema.Dataset
	entry   os.DirEntry
}

func (in input) name() string { return in.entry.Name() }

// listInputs is the one answer to "which files of the input directory belong to which dataset", for
// the build, validation and status alike: datasets in schema.All()'s order, each one's files by name.
// Its error wraps the *fs.PathError, so a caller can tell a missing or unreadable directory.
func listInputs(dir string) ([]input, error) {
	info, err := os.Stat(dir)
	if err == nil && !info.IsDir() {
		err = &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	var entries []os.DirEntry
	if err == nil {
		entries, err = os.ReadDir(dir) // sorted by name
	}
	if err != nil {
		return nil, fmt.Errorf("input directory: %w", err)
	}
	var inputs []input
	for _, d := range schema.All() {
		for _, e := range entries {
			if !e.IsDir() && d.MatchesFile(e.Name()) {
				inputs = append(inputs, input{d, e})
			}
		}
	}
	return inputs, nil
}
