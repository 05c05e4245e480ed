package mcpserver

import (
	"encoding/json"
	"io"
	"math"
	"sync"
	"time"

	"github.com/azabudai/ctool"
)

// callEntry is the log line of one call: which tool, how long, how much came back and, when the call
// failed, the kind of failure. It never holds the SQL, a result, a profile id or a profile field.
type callEntry struct {
	Time      string     `json:"time"`
	Tool      string     `json:"tool,omitempty"`
	MS        float64    `json:"ms"`
	Rows      *int       `json:"rows,omitempty"`      // search tools
	Truncated *bool      `json:"truncated,omitempty"` // search tools
	Found     *bool      `json:"found,omitempty"`     // get_user_profile
	Subject   string     `json:"subject,omitempty"`   // with auth: a keyed hash of the token's subject
	Refusal   ctool.Kind `json:"refusal,omitempty"`   // the error's kind, or the reason auth refused it
}

// callLog writes one JSON line per call; concurrent calls never interleave their lines.
type callLog struct {
	mu sync.Mutex
	w  io.Writer
}

func newCallLog(w io.Writer) *callLog {
	if w == nil {
		w = io.Discard
	}
	return &callLog{w: w}
}

func (l *callLog) write(e callEntry, start time.Time) {
	elapsed := time.Since(start)
	e.Time = start.UTC().Format(time.RFC3339Nano)
	e.MS = math.Round(float64(elapsed.Microseconds())/10) / 100
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(b, '\n'))
}

// LogStart writes the line a server starts with, in the format of the call lines: where it serves
// (stdio, or the URL of its HTTP endpoint), the build it opened and, with --metrics, the URL of its
// health and metrics listener.
func LogStart(w io.Writer, serving, build, metrics string) {
	b, err := json.Marshal(struct {
		Time    string `json:"time"`
		Serving string `json:"serving"`
		Build   string `json:"build"`
		Metrics string `json:"metrics,omitempty"`
	}{time.Now().UTC().Format(time.RFC3339Nano), serving, build, metrics})
	if err != nil {
		return
	}
	w.Write(append(b, '\n'))
}

// LogWarning writes a warning at start in the format of the other lines: {"time", "warning"}.
func LogWarning(w io.Writer, warning string) {
	b, err := json.Marshal(struct {
		Time    string `json:"time"`
		Warning string `json:"warning"`
	}{time.Now().UTC().Format(time.RFC3339Nano), warning})
	if err != nil {
		return
	}
	w.Write(append(b, '\n'))
}
