// Command testprogress runs `go test -json` with the arguments it is given and prints what someone
// waiting for `make test` wants to see: each package's result line as go test prints it, every failing
// test with its output, the long tests as they finish, and, when nothing has been printed for a while,
// which test each running package is on. It ends with one line, "tests: N passed, N failed" (and
// ", N skipped", then each skipped test with its reason), and exits 1 when a test, a build or go test itself failed.
//
//	go run ./internal/testprogress -count=1 ./...
//
// $GO names the go command (default go).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// quiet is how long the output may stay silent before the running packages are named; slow is how
// long a top-level test must take for its end to be printed.
const (
	quiet = 20 * time.Second
	slow  = 5 * time.Second
)

func main() {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
	p := newPrinter(os.Stdout, time.Now)
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	p.read(out)
	close(stop)
	waitErr := cmd.Wait()
	if !p.finish() || waitErr != nil {
		os.Exit(1)
	}
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// pkgState is what is known of a package whose tests are running.
type pkgState struct {
	started time.Time
	current string         // the top-level test last started
	done    map[string]int // subtests finished, by top-level test
	output  []string       // the package's own lines (not a test's), printed if it fails
}

// printer turns events into lines. Its methods are safe to call from the reader and the ticker.
type printer struct {
	mu                   sync.Mutex
	w                    io.Writer
	now                  func() time.Time
	last                 time.Time // when a line was last printed
	pkgs                 map[string]*pkgState
	tests                map[string][]string // a running test's output, by package and test
	passed, failed, skip int
	skipped              []string // each skipped test, with the reason it gave
	broken               bool     // a package or build failed, or go test printed what is not an event
}

func newPrinter(w io.Writer, now func() time.Time) *printer {
	return &printer{w: w, now: now, last: now(), pkgs: map[string]*pkgState{}, tests: map[string][]string{}}
}

func (p *printer) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e event
		line := sc.Text()
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Action == "" {
			// go test's own messages (a pattern that matches nothing, say); the ticker prints too
			p.mu.Lock()
			p.printf("%s\n", line)
			p.mu.Unlock()
			continue
		}
		p.event(e)
	}
}

func (p *printer) printf(format string, args ...any) {
	fmt.Fprintf(p.w, format, args...)
	p.last = p.now()
}

func key(pkg, test string) string { return pkg + " " + test }

// event takes one event of go test -json.
func (p *printer) event(e event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Action == "build-output" {
		p.printf("%s", e.Output)
		return
	}
	if e.Action == "build-fail" {
		p.broken = true
		return
	}
	st := p.pkgs[e.Package]
	if st == nil {
		st = &pkgState{started: p.now(), done: map[string]int{}}
		p.pkgs[e.Package] = st
	}
	if e.Test == "" {
		p.packageEvent(e, st)
		return
	}
	k := key(e.Package, e.Test)
	top, _, sub := strings.Cut(e.Test, "/")
	switch e.Action {
	case "run":
		if !sub {
			st.current = e.Test
		}
	case "output":
		if !strings.HasPrefix(e.Output, "=== ") {
			p.tests[k] = append(p.tests[k], e.Output)
		}
	case "pass", "skip", "fail":
		switch e.Action {
		case "pass":
			p.passed++
		case "skip":
			p.skip++
			p.skipped = append(p.skipped, fmt.Sprintf("%s %s%s", shortName(e.Package), e.Test, skipReason(p.tests[k])))
		case "fail":
			p.failed++
			p.printf("%s", strings.Join(p.tests[k], ""))
		}
		delete(p.tests, k)
		if sub {
			st.done[top]++
		} else if e.Action != "fail" && e.Elapsed >= slow.Seconds() {
			p.printf("    %s %s: %s (%.1fs)\n", shortName(e.Package), e.Test, e.Action, e.Elapsed)
		}
	}
}

// packageEvent takes an event of the package itself: its start, its own output, its end.
func (p *printer) packageEvent(e event, st *pkgState) {
	switch e.Action {
	case "output":
		switch {
		case strings.HasPrefix(e.Output, "ok  \t"), strings.HasPrefix(e.Output, "?   \t"):
			p.printf("%s", e.Output)
		case e.Output == "PASS\n", strings.HasPrefix(e.Output, "=== "):
		default:
			st.output = append(st.output, e.Output)
		}
	case "fail":
		p.broken = true
		p.printf("%s", strings.Join(st.output, ""))
		fallthrough
	case "pass", "skip":
		delete(p.pkgs, e.Package)
	}
}

// tick names the running packages when nothing has been printed for a while.
func (p *printer) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if now.Sub(p.last) < quiet || len(p.pkgs) == 0 {
		return
	}
	names := make([]string, 0, len(p.pkgs))
	for name := range p.pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		st := p.pkgs[name]
		line := fmt.Sprintf("    %s: running %s", shortName(name), now.Sub(st.started).Round(time.Second))
		if st.current != "" {
			line += ", on " + st.current
			if n := st.done[st.current]; n > 0 {
				line += fmt.Sprintf(" (%d subtests done)", n)
			}
		}
		p.printf("%s\n", line)
	}
}

// finish prints the closing line and reports whether everything passed.
func (p *printer) finish() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("tests: %d passed, %d failed", p.passed, p.failed)
	if p.skip > 0 {
		line += fmt.Sprintf(", %d skipped", p.skip)
	}
	p.printf("%s\n", line)
	for _, s := range p.skipped {
		p.printf("    skipped: %s\n", s)
	}
	return p.failed == 0 && !p.broken
}

// skipReason is what a skipped test said last before its "--- SKIP" line, without the file and line
// that t.Skip prefixes: ": why", or "" when it said nothing.
func skipReason(output []string) string {
	for i := len(output) - 1; i >= 0; i-- {
		line := strings.TrimSpace(output[i])
		if line == "" || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		if _, rest, ok := strings.Cut(line, ".go:"); ok {
			if _, msg, ok := strings.Cut(rest, ": "); ok {
				line = msg
			}
		}
		return ": " + line
	}
	return ""
}

// shortName is a package's path without the module's, as people say it.
func shortName(pkg string) string {
	const module = "github.com/azabudai/ctool/"
	if rest, ok := strings.CutPrefix(pkg, module); ok {
		return rest
	}
	return pkg
}
