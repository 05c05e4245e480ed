package database_test

import (
	"context"
	"database/sql/driver"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
)

// holds tells whether this process has the file at path open (Linux's /proc/self/fd).
func holds(t *testing.T, path string) bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.TrimSuffix(target, " (deleted)") == path {
			return true
		}
	}
	return false
}

// A build's connections keep their prepared statements, and closing the build closes them: a statement
// left open would keep the DuckDB instance, and the file, open.
func TestPreparedClosesWithTheBuild(t *testing.T) {
	ctx := context.Background()
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// The pool's own connection: a call's (Conn) is closed when the call ends.
	c, err := b.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const text = "SELECT count(*) FROM stores WHERE store_id <> ?"
	for i := range 3 {
		err := c.Raw(func(dc any) error {
			p, ok := dc.(database.Preparer)
			if !ok {
				t.Fatalf("a build's connection is %T, not a database.Preparer", dc)
			}
			s1, err := p.Prepared(ctx, text)
			if err != nil {
				return err
			}
			if s2, _ := p.Prepared(ctx, text); s2 != s1 {
				t.Error("the same text was prepared twice on one connection")
			}
			rows, err := s1.(driver.StmtQueryContext).QueryContext(ctx, []driver.NamedValue{{Ordinal: 1, Value: "x"}})
			if err != nil {
				return err
			}
			defer rows.Close()
			dest := make([]driver.Value, 1)
			return rows.Next(dest)
		})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// More texts than a connection keeps: the oldest are closed, the newest still work.
	for i := range 40 {
		err := c.Raw(func(dc any) error {
			_, err := dc.(database.Preparer).Prepared(ctx, "SELECT "+strings.Repeat("1+", i)+"1")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	if !holds(t, path) {
		t.Fatal("the open build's file is not among the open files")
	}
	b.Close()
	if holds(t, path) {
		t.Error("the build's file stayed open after Close: a prepared statement keeps its instance")
	}
}

// A build's file is not handed down to child processes (ctool mcp's query workers): DuckDB opens it
// without O_CLOEXEC, and an inherited descriptor would keep a replaced build on disk.
func TestBuildFileIsCloseOnExec(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	seen := 0
	for _, e := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || target != path {
			continue
		}
		seen++
		fd, _ := strconv.Atoi(e.Name())
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		if flags&syscall.FD_CLOEXEC == 0 {
			t.Errorf("descriptor %d of %s is inherited by child processes", fd, path)
		}
	}
	if seen == 0 {
		t.Fatal("the open build's file is not among the open files")
	}
}
