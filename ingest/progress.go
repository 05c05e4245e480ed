package ingest

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Options tune Validate and Ingest. The zero value keeps every problem and reports no progress.
type Options struct {
	// MaxErrors is how many problems the report keeps (all are counted); 0 keeps all.
	MaxErrors int
	// MaxFileSize is the largest input file read, in bytes; a larger one is a problem, refused before
	// it is read. 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Progress, when set, is told how far validation has read the input: every progressRows rows or
	// progressBytes bytes, after each file, and a last time with Done set, also when the call fails.
	// Calls never overlap.
	Progress func(Progress)
	// Step, when set, is called by Ingest after each step of the build with the step's name (the Step
	// constants, in that order), so that tests can stop a build at any of them. The CLI passes nil.
	Step func(name string)
	// Strict makes every warning an error: a value that cannot be typed refuses the build, as it did
	// before such values were kept unknown.
	Strict bool
	// Contracts, when set, also checks the contracts (contracts.go); ctool validate sets it.
	Contracts *Contracts

	snap *snapshot // reading the other side of a comparison: every row is fingerprinted into it
	// ctx, when set, stops validation once it is done (Validate returns its error).
	ctx context.Context
	// failed, when set, is called once, at the first error validation finds: Ingest stops its load there.
	failed func()
	// compute, when set, sees every record as wide as its header, in file order: Ingest computes
	// values of the build with it as validation reads them (computed.go).
	compute func(f *File, record []string)
	// loading, when set, is called by Ingest's load before it creates its files (f nil) and before each
	// file's load, only while validation has found no problem: tests watch the load through it.
	loading func(f *File)
}

// Progress is how far validation has read the input; an ingest loads the same files alongside it.
type Progress struct {
	Rows       int64 // records read so far, every file together
	Bytes      int64 // bytes read so far
	TotalBytes int64 // the size of every input file together, when validation started
	Read       bool  // every file has been read
	Done       bool  // the last report: for an ingest, sent once the build is committed or abandoned
}

// How often validation reports: often enough for a live display, rarely enough to cost nothing.
const (
	progressRows  = 4096
	progressBytes = 4 << 20
)

// progress counts what validation has read and passes it on to Options.Progress.
type progress struct {
	report func(Progress)
	now    Progress
	last   Progress
	base   int64 // bytes of the files read before the current one
}

// record counts one record of the current file, of which read bytes have been read so far.
func (p *progress) record(read int64) {
	if p.report == nil {
		return
	}
	p.now.Rows++
	p.now.Bytes = p.base + read
	if p.now.Rows-p.last.Rows >= progressRows || p.now.Bytes-p.last.Bytes >= progressBytes {
		p.send()
	}
}

// fileRead counts a whole file as read.
func (p *progress) fileRead(size int64) {
	p.base += size
	p.now.Bytes = p.base
	if p.report != nil {
		p.send()
	}
}

func (p *progress) send() {
	p.last = p.now
	p.report(p.now)
}

// finish sends the last report.
func (p *progress) finish(read bool) {
	if p.report == nil {
		return
	}
	p.now.Read = read
	p.now.Done = true
	p.send()
}

// ProgressBar returns an Options.Progress that draws a live bar on w, which should be a terminal: the
// share and bytes of the input read, the rows so far and rows per second, redrawn at most ten times a
// second. When everything is read the full bar stays on its line; an ingest that is still loading and
// committing then says so on a line of its own. A run stopped before the end takes the bar away.
func ProgressBar(w io.Writer) func(Progress) {
	var bar *progressbar.ProgressBar
	var start time.Time
	ended, waiting := false, false
	return func(p Progress) {
		if bar == nil {
			start = time.Now()
			bar = progressbar.NewOptions64(max(p.TotalBytes, 1),
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetWidth(30),
				progressbar.OptionShowBytes(true),
				progressbar.OptionShowTotalBytes(true),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
			)
		}
		if !ended {
			rate := ""
			if s := time.Since(start).Seconds(); s >= 0.5 {
				rate = fmt.Sprintf(", %s rows/s", commas(int(float64(p.Rows)/s)))
			}
			bar.Describe(fmt.Sprintf("validating: %s rows%s ", commas(int(p.Rows)), rate))
			switch {
			case p.Read:
				ended = true
				bar.Finish() // draws the full bar and ends its line
			case p.Done:
				ended = true
				bar.Exit() // stopped before the end: take the bar away for the error that follows
				bar.Clear()
			default:
				// Short of the end until Read: a bar that reaches it finishes with the description it had.
				bar.Set64(min(p.Bytes, bar.GetMax64()-1))
			}
		}
		if p.Read && !p.Done && !waiting {
			waiting = true
			fmt.Fprintln(w, "loading into DuckDB and committing ...")
		}
	}
}

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
