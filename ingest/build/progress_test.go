package build_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/ingest/validation"
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
func checkReports(t *testing.T, reports []validation.Progress, res *validation.Result) {
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
	var reports []validation.Progress
	res, err := validation.Run(input, validation.Options{Progress: func(p validation.Progress) { reports = append(reports, p) }})
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
	var reports []validation.Progress
	opts := build.Options{Progress: func(p validation.Progress) { reports = append(reports, p) }}
	sum, err := build.Run(context.Background(), input, filepath.Join(t.TempDir(), "ctool.duckdb"), opts)
	if err != nil || sum == nil {
		t.Fatalf("ingest: %v", err)
	}
	checkReports(t, reports, &validation.Result{Files: sum.Files})
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
	_, err = build.Run(context.Background(), bad, filepath.Join(t.TempDir(), "ctool.duckdb"), opts)
	var invalid *validation.InvalidError
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
