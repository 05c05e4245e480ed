package validation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/azabudai/ctool/internal/escape"
)

// DefaultMaxFileSize is the largest input file read unless --max-file-size says otherwise: far above
// the real data (tens of kilobytes a file), far below what would strain validation's memory.
const DefaultMaxFileSize = 256 << 20

// EntryError is an input entry that is not read: a link, a device, a FIFO, a socket, a directory or a
// file over the size limit. It names the entry and says what it is; nothing of what it points to is read.
type EntryError struct {
	Path string // the entry, as problems name it
	What string // what it is, e.g. "a symbolic link"
	Hint string // what to do instead
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s is %s; %s", escape.Visible(e.Path), e.What, e.Hint)
}

// onlyRegular is the hint for an entry that is not a regular file.
const onlyRegular = "ctool reads only regular files in the input directory and follows no links: put the file itself there"

// OpenInput opens an input entry for reading. It is the one way validation, the load and status open
// an input file, so all three refuse the same entries. The entry is checked with lstat, then opened
// with O_NOFOLLOW (a link swapped in between fails to open) and O_NONBLOCK (a FIFO swapped in opens
// without waiting for a writer), and the open file is checked again with fstat: only a regular file
// of at most maxSize bytes (0: DefaultMaxFileSize) is returned. Any other error is the open's own.
func OpenInput(path string, maxSize int64) (*os.File, fs.FileInfo, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkEntry(path, info, maxSize); err != nil {
		return nil, nil, err
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return nil, nil, &EntryError{Path: path, What: "a symbolic link", Hint: onlyRegular}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := checkEntry(path, info, maxSize); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// checkEntry refuses anything but a regular file of at most maxSize bytes.
func checkEntry(path string, info fs.FileInfo, maxSize int64) error {
	what := ""
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case !m.IsRegular():
		what = "not a regular file"
	}
	if what != "" {
		return &EntryError{Path: path, What: what, Hint: onlyRegular}
	}
	if info.Size() > maxSize {
		return &EntryError{Path: path, What: fmt.Sprintf("%d bytes, over the limit of %d", info.Size(), maxSize),
			Hint: "raise --max-file-size if the file is meant to be this large"}
	}
	return nil
}

// entryProblem is the report's line for a refused entry.
func entryProblem(e *EntryError) Problem {
	return Problem{File: e.Path, Rule: RuleFile, Message: "is " + e.What + "; " + e.Hint}
}
