package validation

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/azabudai/ctool/schema"
)

// Input is an entry of the input directory that belongs to a dataset.
type Input struct {
	Dataset *schema.Dataset
	entry   os.DirEntry
}

// Name is the entry's base name.
func (in Input) Name() string { return in.entry.Name() }

// Inputs is the one answer to "which files of the input directory belong to which dataset", for
// the build, validation and status alike: datasets in schema.All()'s order, each one's files by name.
// Its error wraps the *fs.PathError, so a caller can tell a missing or unreadable directory.
func Inputs(dir string) ([]Input, error) {
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
	var inputs []Input
	for _, d := range schema.All() {
		for _, e := range entries {
			if !e.IsDir() && d.MatchesFile(e.Name()) {
				inputs = append(inputs, Input{d, e})
			}
		}
	}
	return inputs, nil
}
