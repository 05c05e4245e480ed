package validation_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/validation"
)

// feed sends reports of a run over rows rows and size bytes to report: nothing read, then steps, then
// the end as Validate (read and done) or Ingest (read, then done) sends it.
func feed(report func(validation.Progress), rows, size int64, steps int, ingesting bool) {
	for i := range int64(steps) {
		report(validation.Progress{Rows: rows * i / int64(steps), Bytes: size * i / int64(steps), TotalBytes: size})
	}
	end := validation.Progress{Rows: rows, Bytes: size, TotalBytes: size, Read: true, Done: !ingesting}
	report(end)
	if ingesting {
		end.Done = true
		report(end)
	}
}

// lastLine is what a terminal shows last on the bar's line: the text after the last carriage return.
func lastLine(out string) string {
	line := strings.TrimSuffix(out, "\n")
	if i := strings.LastIndex(line, "\n"); i >= 0 {
		line = line[i+1:]
	}
	if i := strings.LastIndex(line, "\r"); i >= 0 {
		line = line[i+1:]
	}
	return line
}

func TestProgressBar(t *testing.T) {
	t.Run("validate", func(t *testing.T) {
		var out bytes.Buffer
		feed(validation.ProgressBar(&out), 123456, 5<<20, 50, false)
		bar, _, _ := strings.Cut(out.String(), "\n")
		if !strings.HasSuffix(out.String(), "\n") || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("the bar should end its one line: %q", out.String())
		}
		last := lastLine(bar)
		for _, want := range []string{"validating: 123,456 rows", "100%", "5.2 MB"} {
			if !strings.Contains(last, want) {
				t.Errorf("the finished bar %q lacks %q", last, want)
			}
		}
	})
	t.Run("ingest", func(t *testing.T) {
		var out bytes.Buffer
		feed(validation.ProgressBar(&out), 1000, 1<<20, 5, true)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lastLine(lines[0]), "100%") || lines[1] != "loading into DuckDB and committing ..." {
			t.Errorf("want the finished bar, then the loading line; got %q", out.String())
		}
	})
	t.Run("stopped", func(t *testing.T) {
		// Validation stopped half-way (an error): the bar goes, leaving the line to the error message.
		var out bytes.Buffer
		report := validation.ProgressBar(&out)
		report(validation.Progress{TotalBytes: 100})
		report(validation.Progress{Rows: 5, Bytes: 50, TotalBytes: 100})
		report(validation.Progress{Rows: 5, Bytes: 50, TotalBytes: 100, Done: true})
		if s := out.String(); !strings.Contains(s, "% |") || strings.Contains(s, "100%") || lastLine(s) != "" {
			t.Errorf("a stopped bar should be drawn, then taken away: %q", s)
		}
	})
	t.Run("redraws are throttled", func(t *testing.T) {
		// 20,000 updates fed as fast as the loop goes: a bar redrawn on every update would draw
		// 20,000 times; throttled to ten a second it draws a handful, however slow the machine.
		var out bytes.Buffer
		feed(validation.ProgressBar(&out), 1_000_000, 100<<20, 20000, false)
		if draws := strings.Count(out.String(), "% |"); draws > 200 {
			t.Errorf("%d redraws for 20,000 updates: the bar is not throttled", draws)
		}
	})
}
