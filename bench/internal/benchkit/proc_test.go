package benchkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCopyFiles(t *testing.T) {
	from, to := t.TempDir(), filepath.Join(t.TempDir(), "out")
	for name, text := range map[string]string{"a.csv": "a", "b.csv": "b", "c.txt": "c"} {
		if err := os.WriteFile(filepath.Join(from, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(from, "d.csv"), 0o755) // not a regular file
	keep := func(name string) bool { return strings.HasSuffix(name, ".csv") }
	upper := func(name string, b []byte) []byte {
		if name == "b.csv" {
			return bytes.ToUpper(b)
		}
		return b
	}
	if err := CopyFiles(from, to, keep, upper); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(to)
	var got []string
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(to, e.Name()))
		got = append(got, e.Name()+"="+string(b))
	}
	if want := "a.csv=a b.csv=B"; strings.Join(got, " ") != want {
		t.Errorf("copied %q, want %q", got, want)
	}
}

func TestServingWriter(t *testing.T) {
	w := &servingWriter{found: make(chan string, 1)}
	for _, part := range []string{`{"msg":"start`, "ing\"}\n{\"serving\":\"http://127.0.0.1:1/mcp\"", "}\n{\"call\":1}\n"} {
		w.Write([]byte(part))
	}
	select {
	case url := <-w.found:
		if url != "http://127.0.0.1:1/mcp" {
			t.Errorf("serving %q", url)
		}
	default:
		t.Fatal("no serving line found")
	}
	if h := w.head(); h != `{"msg":"starting"}` {
		t.Errorf("lines before: %q", h)
	}
}
