package validation

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
)

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
