package validation

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every entry but a regular file within the size limit is refused without reading what it points to,
// and without waiting: a FIFO with no writer and a link to /dev/zero answer at once.
func TestOpenInputRefuses(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(at("regular.csv"), []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("secret"), []byte("MARKER-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(at("secret"), at("link.csv")))
	must(t, os.Symlink("/dev/zero", at("zero.csv")))
	must(t, os.Symlink(dir, at("dirlink.csv")))
	must(t, syscall.Mkfifo(at("fifo.csv"), 0o644))
	must(t, os.Mkdir(at("dir.csv"), 0o755))
	if l, err := net.Listen("unix", at("sock.csv")); err == nil {
		defer l.Close()
	}
	for _, c := range []struct {
		name, what string
		max        int64
	}{
		{"regular.csv", "", 0},
		{"link.csv", "a symbolic link", 0},
		{"zero.csv", "a symbolic link", 0},
		{"dirlink.csv", "a symbolic link", 0},
		{"fifo.csv", "a FIFO (named pipe)", 0},
		{"dir.csv", "a directory", 0},
		{"sock.csv", "a socket", 0},
		{"regular.csv", "4 bytes, over the limit of 3", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Lstat(at(c.name)); err != nil {
				t.Skip(err)
			}
			f, info, err := OpenInput(at(c.name), c.max)
			if c.what == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if !info.Mode().IsRegular() {
					t.Errorf("mode %v", info.Mode())
				}
				return
			}
			var ee *EntryError
			if !errors.As(err, &ee) {
				t.Fatalf("error %v, want an *EntryError", err)
			}
			if f != nil {
				t.Error("a refused entry returned an open file")
			}
			if ee.What != c.what || ee.Path != at(c.name) {
				t.Errorf("refused %s as %q, want %s as %q", ee.Path, ee.What, at(c.name), c.what)
			}
			if strings.Contains(ee.Error(), "MARKER") {
				t.Errorf("the error quotes the link's target: %s", ee)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
