package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/validation"
)

// sampleCopy copies the repository's input/ into a new directory, passing each file's text through edit.
func sampleCopy(t *testing.T, edit func(name, text string) string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("..", "..", "input"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("..", "..", "input", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if edit != nil {
			text = edit(e.Name(), text)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wideHeader gives narrative_data_2.csv a header with extra fields after its own.
func wideHeader(extra int) func(name, text string) string {
	return func(name, text string) string {
		if name != "narrative_data_2.csv" {
			return text
		}
		header, rest, _ := strings.Cut(text, "\n")
		var b strings.Builder
		b.WriteString(header)
		for i := range extra {
			fmt.Fprintf(&b, ",x%d", i)
		}
		return b.String() + "\n" + rest
	}
}

// loadWatch records what an ingest's load did, in order: "create" when it may create its files, the
// name of each file when it may start loading it, "failed" at validation's first error.
type loadWatch struct {
	mu     sync.Mutex
	events []string
	failed chan struct{}
}

func watchLoad(opts *Options) *loadWatch {
	w := &loadWatch{failed: make(chan struct{})}
	opts.loading = func(f *planned) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if f == nil {
			w.events = append(w.events, "create")
		} else {
			w.events = append(w.events, f.Name)
		}
	}
	opts.failed = func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.events = append(w.events, "failed")
		close(w.failed)
	}
	return w
}

func (w *loadWatch) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events)
}

// An input whose header validation refuses is never loaded: not a file is created, not a statement
// runs, the refusal comes as the report's header problem, and it comes fast and in bounded memory,
// even for a header of a million fields (which used to cost minutes and gigabytes before any load).
func TestIngestRefusesHeadersBeforeLoading(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(name, text string) string
		want  string // the problems as text, the directory shown as DIR
		alloc uint64 // the most bytes the ingest may allocate
	}{
		{"4,097 fields", wideHeader(validation.MaxColumns - 8 + 1),
			"DIR/narrative_data_2.csv:1: -: header: the header has 4097 fields, more than the 4096 a file may have", 64 << 20},
		{"a million fields", wideHeader(1_000_000),
			"DIR/narrative_data_2.csv:1: -: header: the header has 39033 fields in its first 262144 bytes alone, more than the 4096 a file may have", 64 << 20},
		{"a header of 300,000 bytes", func(name, text string) string {
			if name != "narrative_data_2.csv" {
				return text
			}
			return "x" + strings.Repeat("y", 300_000) + "," + text
		}, "DIR/narrative_data_2.csv:1: -: header: the header does not end within its first 262144 bytes", 64 << 20},
		{"an unknown column", wideHeader(1),
			"DIR/narrative_data_2.csv:1: x0: header: unknown column \"x0\"; profiles columns are: profile_id,age,gender,user_type,primary_store_id,primary_store_name,visits,narrative", 64 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := sampleCopy(t, tt.edit)
			db := filepath.Join(t.TempDir(), "data", "ctool.duckdb")
			var opts Options
			w := watchLoad(&opts)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Run(context.Background(), input, db, opts)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			var invalid *validation.InvalidError
			if !errors.As(err, &invalid) {
				t.Fatalf("err %v, want the input refused", err)
			}
			var got []string
			for _, p := range invalid.Report.Problems {
				got = append(got, strings.ReplaceAll(p.String(), input, "DIR"))
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("problems\n%s\nwant\n%s", g, tt.want)
			}
			if ev := w.seen(); !slices.Equal(ev, []string{"failed"}) {
				t.Errorf("the load did %q, want nothing", ev)
			}
			if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
				t.Errorf("the database directory was made: %v", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > tt.alloc {
				t.Errorf("the ingest allocated %d bytes, want at most %d", n, tt.alloc)
			}
			if elapsed > 10*time.Second {
				t.Errorf("the ingest took %s", elapsed)
			}
		})
	}
}

// Once validation finds a problem, no file starts loading: the load waits at its first step until
// validation has failed on the stores file's second line, and then loads nothing.
func TestIngestLoadsNothingAfterValidationFailed(t *testing.T) {
	input := sampleCopy(t, func(name, text string) string {
		if strings.HasPrefix(name, "filtered_store_data") {
			return strings.Replace(text, ",success,", ",succeeded,", 1)
		}
		return text
	})
	db := filepath.Join(t.TempDir(), "data", "ctool.duckdb")
	opts := Options{Strict: true} // the bad enum is a warning otherwise
	w := watchLoad(&opts)
	opts.Step = func(step string) {
		if step == StepCreated {
			select {
			case <-w.failed:
			case <-time.After(30 * time.Second):
				t.Error("validation did not report its first problem while the load waited")
			}
		}
	}
	_, err := Run(context.Background(), input, db, opts)
	var invalid *validation.InvalidError
	if !errors.As(err, &invalid) || invalid.Report.Problems[0].Rule != validation.RuleEnum {
		t.Fatalf("err %v, want the enum problem", err)
	}
	// On a busy machine validation may fail before the load has even created its files.
	if ev := w.seen(); !slices.Equal(ev, []string{"create", "failed"}) && !slices.Equal(ev, []string{"failed"}) {
		t.Errorf("the load did %q, want at most its files created before validation failed", ev)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(db), "*")); len(left) > 0 {
		t.Errorf("the failed ingest left %v", left)
	}
}
