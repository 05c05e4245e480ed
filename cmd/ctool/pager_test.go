package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestFileTerminal: a pty is a terminal of the size it was given; a file, a pipe or a buffer is none.
func TestFileTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Cols: 50, Rows: 20}); err != nil {
		t.Fatal(err)
	}
	if got, ok := fileTerminal(tty); !ok || got != (terminal{50, 20}) {
		t.Errorf("fileTerminal(pty 50x20) = %+v, %v", got, ok)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]io.Writer{"file": f, "pipe": w, "buffer": &bytes.Buffer{}} {
		if _, ok := fileTerminal(out); ok {
			t.Errorf("fileTerminal(%s) says it is a terminal", name)
		}
	}
}

func TestPagerCommand(t *testing.T) {
	tests := []struct {
		env  map[string]string // a key present is set, maybe empty
		want string
	}{
		{map[string]string{}, "less -FRX"},
		{map[string]string{"PAGER": "more"}, "more"},
		{map[string]string{"PAGER": ""}, "less -FRX"},
		{map[string]string{"PAGER": "cat"}, ""},
		{map[string]string{"CTOOL_PAGER": "most -s", "PAGER": "more"}, "most -s"},
		{map[string]string{"CTOOL_PAGER": "", "PAGER": "more"}, ""}, // set and empty: no pager
		{map[string]string{"CTOOL_PAGER": " "}, ""},
		{map[string]string{"CTOOL_PAGER": "cat"}, ""},
	}
	for _, tt := range tests {
		lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		if got := pagerCommand(lookup); got != tt.want {
			t.Errorf("pagerCommand(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestShouldPage(t *testing.T) {
	tenLines := strings.Repeat("row\n", 10)
	tests := []struct {
		text string
		term terminal
		want bool
	}{
		{tenLines, terminal{80, 24}, false},
		{tenLines, terminal{80, 11}, false},
		{tenLines, terminal{80, 10}, true}, // the prompt needs the last line
		{tenLines, terminal{80, 5}, true},
		{tenLines, terminal{80, 0}, false},                       // a terminal that does not say its height
		{strings.Repeat("x", 100) + "\n", terminal{40, 3}, true}, // wraps to 3 lines
		{strings.Repeat("x", 100) + "\n", terminal{40, 4}, false},
		{strings.Repeat("麻", 30) + "\n", terminal{40, 2}, true}, // 60 columns wide: 2 lines
		{strings.Repeat("麻", 20) + "\n", terminal{40, 2}, false},
	}
	for _, tt := range tests {
		if got := shouldPage(tt.text, tt.term); got != tt.want {
			t.Errorf("shouldPage(%d lines of %d bytes, %+v) = %v, want %v", strings.Count(tt.text, "\n"), len(tt.text), tt.term, got, tt.want)
		}
	}
}

// TestPage runs the pager decision end to end with real pagers (shell commands): tall text goes
// through the pager, short text and CTOOL_PAGER= do not, a pager that quits early or fails is no error.
func TestPage(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	tall := strings.Repeat("line\n", 30)
	tests := []struct {
		name       string
		env        map[string]string
		text       string
		wantOut    string
		wantStderr string
	}{
		{"short_no_pager", map[string]string{"CTOOL_PAGER": "sed s/^/paged:/"}, "a\nb\n", "a\nb\n", ""},
		{"tall_paged", map[string]string{"CTOOL_PAGER": "sed s/^/paged:/"}, tall, strings.Repeat("paged:line\n", 30), ""},
		{"ctool_pager_over_pager", map[string]string{"CTOOL_PAGER": "sed s/^/ctool:/", "PAGER": "sed s/^/pager:/"}, tall, strings.Repeat("ctool:line\n", 30), ""},
		{"pager", map[string]string{"PAGER": "sed s/^/pager:/"}, tall, strings.Repeat("pager:line\n", 30), ""},
		{"disabled", map[string]string{"CTOOL_PAGER": "", "PAGER": "sed s/^/pager:/"}, tall, tall, ""},
		// q pressed at once: the pager reads nothing and exits; ctool's writes meet a closed pipe.
		{"quits_early", map[string]string{"CTOOL_PAGER": "exit 0"}, strings.Repeat("line\n", 100000), "", ""},
		{"fails", map[string]string{"CTOOL_PAGER": "head -n 1; exit 3"}, tall, "line\n", ""},
		{"missing", map[string]string{"CTOOL_PAGER": "no-such-pager-here"}, tall, tall, "did not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return tt.env[k] },
				lookupEnv: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }}
			if err := e.page(terminal{80, 24}, []byte(tt.text)); err != nil {
				t.Fatalf("page: %v", err)
			}
			if stdout.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", trim(stdout.String()), trim(tt.wantOut))
			}
			if (tt.wantStderr == "") != (stderr.Len() == 0) || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
