package validation

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/schema"
)

// Input is an entry of the input directory that belongs to a dataset.
type Input struct {
	Dataset *schema.Dataset
	entry   os.DirEntry
}

// Name is the entry's base name.
func (in Input) Name() string { return in.entry.Name() }

// InputHint is the way forward from an input directory that is missing or not a directory.
const InputHint = "name the directory of the CSV files: --input DIR"

// Inputs is the one answer to "which files of the input directory belong to which dataset", for
// the build, validation and status alike: datasets in schema.All()'s order, each one's files by name.
// Its error is a *fault.Error of kind io with InputHint, and wraps the *fs.PathError, so a caller can
// tell a missing or unreadable directory.
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
		return nil, &fault.Error{Kind: fault.KindIO, Message: "input directory: " + err.Error(), Hint: InputHint, Err: err}
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
