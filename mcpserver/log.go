package mcpserver

import (
	"encoding/json"
	"io"
	"math"
	"sync"
	"time"

	"github.com/azabudai/ctool"
)

// eventLog writes the server's log: one JSON object per line, its "time" first, under a mutex so that the
// call lines, the worker events and the start, warning and stop lines share one stream without
// interleaving. It never holds the SQL, a result, a profile id or a profile field. A nil *eventLog writes
// nothing.
type eventLog struct {
	mu sync.Mutex
	w  io.Writer
}

// newEventLog returns an eventLog writing to w.
func newEventLog(w io.Writer) *eventLog { return &eventLog{w: w} }

// write writes v, a struct of JSON fields, as one line whose "time" (UTC) is at.
func (l *eventLog) write(at time.Time, v any) {
	if l == nil || l.w == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return
	}
	line := make([]byte, 0, len(b)+48)
	line = append(line, `{"time":"`...)
	line = at.UTC().AppendFormat(line, time.RFC3339Nano)
	line = append(line, '"')
	if len(b) > 2 {
		line = append(line, ',')
	}
	line = append(append(line, b[1:]...), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(line)
}

// callEntry is the log line of one call: which tool, how long, how much came back and, when the call
// failed, the kind of failure.
type callEntry struct {
	Tool      string     `json:"tool,omitempty"`
	MS        float64    `json:"ms"`
	Rows      *int       `json:"rows,omitempty"`      // search tools
	Truncated *bool      `json:"truncated,omitempty"` // search tools
	Found     *bool      `json:"found,omitempty"`     // get_user_profile
	Subject   string     `json:"subject,omitempty"`   // with auth: a keyed hash of the token's subject
	Refusal   ctool.Kind `json:"refusal,omitempty"`   // the error's kind, or the reason auth refused it
}

// call writes the line of a call that started at start and ends now.
func (l *eventLog) call(e callEntry, start time.Time) {
	e.MS = math.Round(float64(time.Since(start).Microseconds())/10) / 100
	l.write(start, e)
}

// start writes the line a server starts with: where it serves (stdio, or the URL of its HTTP
// endpoint), the build it opened and, with --metrics, the URL of its health and metrics listener.
func (l *eventLog) start(serving, build, metrics string) {
	l.write(time.Now(), struct {
		Serving string `json:"serving"`
		Build   string `json:"build"`
		Metrics string `json:"metrics,omitempty"`
	}{serving, build, metrics})
}

// warning writes a warning at start: {"time", "warning"}.
func (l *eventLog) warning(warning string) {
	l.write(time.Now(), struct {
		Warning string `json:"warning"`
	}{warning})
}

// keysFailed writes the line of a failed fetch of the issuer's key set: the keys fetched before stay
// in use.
func (l *eventLog) keysFailed(err error) {
	l.write(time.Now(), struct {
		Keys  string `json:"keys"`
		Error string `json:"error"`
	}{"fetch_failed", err.Error()})
}

// stop writes the line a drain ends with: how long it took, and how many calls it had to cut off.
func (l *eventLog) stop(took time.Duration, cut int) {
	l.write(time.Now(), struct {
		Stopped string  `json:"stopped"`
		MS      float64 `json:"ms"`
		Cut     int     `json:"cut,omitempty"`
	}{"drained", float64(took.Milliseconds()), cut})
}
