package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/ingesttest"
)

// bigInput is the sample data with enough extra products that validation reports progress along the way.
func bigInput(tb testing.TB, products int) string {
	tb.Helper()
	return copyInput(tb, ingesttest.SampleInput(tb), func(name, text string) string {
		if name != "filtered_product_data.csv" {
			return text
		}
		var b strings.Builder
		b.WriteString(text)
		for i := range products {
			fmt.Fprintf(&b, "STR-0001,麻布台ヒルズマーケット,詰め合わせ No.%d,\"旬の詰め合わせ。\n%d円（税込）\",ギフト\n", i, 500+i%1000)
		}
		return b.String()
	})
}

// checkReports checks a run's progress reports: counts only grow, the last report and only it is Done,
// and by then every row and byte validation read was counted.
func checkReports(t *testing.T, reports []ingest.Progress, res *ingest.Result) {
	t.Helper()
	if len(reports) < 3 {
		t.Fatalf("only %d progress reports: %+v", len(reports), reports)
	}
	var rows, size int64
	for _, f := range res.Files {
		rows += int64(f.Rows)
		size += f.Size
	}
	for i, p := range reports {
		if p.TotalBytes != size {
			t.Errorf("report %d: TotalBytes %d, the files hold %d", i, p.TotalBytes, size)
		}
		if p.Done != (i == len(reports)-1) {
			t.Errorf("report %d of %d: Done %v", i+1, len(reports), p.Done)
		}
		if i > 0 && (p.Rows < reports[i-1].Rows || p.Bytes < reports[i-1].Bytes) {
			t.Errorf("report %d went back: %+v after %+v", i, p, reports[i-1])
		}
	}
	if first := reports[0]; first.Rows != 0 || first.Bytes != 0 {
		t.Errorf("the first report is %+v, want nothing read yet", first)
	}
	if last := reports[len(reports)-1]; last.Rows != rows || last.Bytes != size || !last.Read {
		t.Errorf("the last report is %+v, want all %d rows and %d bytes read", last, rows, size)
	}
}

func TestValidateReportsProgress(t *testing.T) {
	input := bigInput(t, 20000)
	var reports []ingest.Progress
	res, err := ingest.Validate(input, ingest.Options{Progress: func(p ingest.Progress) { reports = append(reports, p) }})
	if err != nil || !res.Report.Valid() {
		t.Fatalf("validate: %v %+v", err, res.Report)
	}
	checkReports(t, reports, res)
	// Reports come along the way, every 4096 rows, not only per file: 20,000 products give several.
	along := 0
	for i := 1; i < len(reports); i++ {
		if reports[i].Rows-reports[i-1].Rows == 4096 {
			along++
		}
	}
	if along < 4 {
		t.Errorf("%d reports along the way, want at least 4: %+v", along, reports)
	}
}

func TestIngestReportsProgress(t *testing.T) {
	input := bigInput(t, 5000)
	var reports []ingest.Progress
	opts := ingest.Options{Progress: func(p ingest.Progress) { reports = append(reports, p) }}
	sum, err := ingest.Ingest(context.Background(), input, filepath.Join(t.TempDir(), "ctool.duckdb"), opts)
	if err != nil || sum == nil {
		t.Fatalf("ingest: %v", err)
	}
	checkReports(t, reports, &ingest.Result{Files: sum.Files})
	// Validation's end is reported while the build goes on: read, but not done.
	if p := reports[len(reports)-2]; !p.Read || p.Done {
		t.Errorf("the report before the last is %+v, want read and not done", p)
	}

	// Invalid input: no report says the build goes on, and the last one still ends the display.
	bad := copyInput(t, input, func(name, text string) string {
		if name == "events.csv" {
			return strings.Replace(text, "2025-", "2025/", 1)
		}
		return text
	})
	reports = nil
	opts.Strict = true // a bad date is a warning otherwise
	_, err = ingest.Ingest(context.Background(), bad, filepath.Join(t.TempDir(), "ctool.duckdb"), opts)
	var invalid *ingest.InvalidError
	if !errors.As(err, &invalid) || invalid.Report.Valid() {
		t.Fatalf("ingest of invalid input: %v, want an *InvalidError with problems", err)
	}
	checkReports(t, reports, invalid.Result)
	for _, p := range reports[:len(reports)-1] {
		if p.Read {
			t.Errorf("invalid input, yet a report says the build goes on: %+v", p)
		}
	}
}

// feed sends reports of a run over rows rows and size bytes to report: nothing read, then steps, then
// the end as Validate (read and done) or Ingest (read, then done) sends it.
func feed(report func(ingest.Progress), rows, size int64, steps int, ingesting bool) {
	for i := range int64(steps) {
		report(ingest.Progress{Rows: rows * i / int64(steps), Bytes: size * i / int64(steps), TotalBytes: size})
	}
	end := ingest.Progress{Rows: rows, Bytes: size, TotalBytes: size, Read: true, Done: !ingesting}
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
		feed(ingest.ProgressBar(&out), 123456, 5<<20, 50, false)
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
		feed(ingest.ProgressBar(&out), 1000, 1<<20, 5, true)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lastLine(lines[0]), "100%") || lines[1] != "loading into DuckDB and committing ..." {
			t.Errorf("want the finished bar, then the loading line; got %q", out.String())
		}
	})
	t.Run("stopped", func(t *testing.T) {
		// Validation stopped half-way (an error): the bar goes, leaving the line to the error message.
		var out bytes.Buffer
		report := ingest.ProgressBar(&out)
		report(ingest.Progress{TotalBytes: 100})
		report(ingest.Progress{Rows: 5, Bytes: 50, TotalBytes: 100})
		report(ingest.Progress{Rows: 5, Bytes: 50, TotalBytes: 100, Done: true})
		if s := out.String(); !strings.Contains(s, "% |") || strings.Contains(s, "100%") || lastLine(s) != "" {
			t.Errorf("a stopped bar should be drawn, then taken away: %q", s)
		}
	})
	t.Run("redraws are throttled", func(t *testing.T) {
		// 20,000 updates fed as fast as the loop goes: a bar redrawn on every update would draw
		// 20,000 times; throttled to ten a second it draws a handful, however slow the machine.
		var out bytes.Buffer
		feed(ingest.ProgressBar(&out), 1_000_000, 100<<20, 20000, false)
		if draws := strings.Count(out.String(), "% |"); draws > 200 {
			t.Errorf("%d redraws for 20,000 updates: the bar is not throttled", draws)
		}
	})
}
