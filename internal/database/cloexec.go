package database

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// closeOnExec marks this process's descriptors of the file at path close-on-exec. DuckDB opens its files
// without O_CLOEXEC, so every child started later (ctool mcp's query workers) would inherit the build
// open when it started and keep that file on disk after an ingest replaced it, for as long as it lives.
// Best effort: where /proc/self/fd cannot be read nothing is marked.
func closeOnExec(path string) {
	// /proc shows the file's absolute path with symbolic links resolved.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || (target != path && target != path+".wal") {
			continue
		}
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			syscall.CloseOnExec(fd)
		}
	}
}
