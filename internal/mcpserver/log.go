package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/worker"
)

// eventLog is the server's log: log/slog's JSON handler, one object per line with its "time" (UTC)
// first and no level or message, since each line's fields say what happened (docs/mcp.md, "The log").
// The handler writes each line whole, so the call lines, the worker events and the start, warning and
// stop lines share one stream without interleaving. No line holds the SQL, a result, a profile id or
// a profile field. A nil *eventLog writes nothing.
type eventLog struct {
	h   slog.Handler
	now func() time.Time
}

// newEventLog returns the log written to w (nil: none).
func newEventLog(w io.Writer) *eventLog {
	if w == nil {
		return nil
	}
	return &eventLog{h: LogHandler(w), now: time.Now}
}

// LogHandler writes slog records as the server's log lines: JSON, "time" in UTC first, no level or
// message. Another part of the server that writes to the same stream (internal/sites: the followers'
// changes of state) writes its lines with it, through a writer that writes each line whole.
func LogHandler(w io.Writer) slog.Handler {
	return slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: bare})
}

// site is the log of one site of `ctool mcp --site`: each line names it.
func (l *eventLog) site(name string) *eventLog {
	if l == nil || name == "" {
		return l
	}
	return &eventLog{h: l.h.WithAttrs([]slog.Attr{slog.String("site", name)}), now: l.now}
}

// bare drops the level and the message, and writes the time in UTC.
func bare(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.LevelKey, slog.MessageKey:
		return slog.Attr{}
	case slog.TimeKey:
		return slog.Time(slog.TimeKey, a.Value.Time().UTC())
	}
	return a
}

// write writes one line of attrs whose time is at.
func (l *eventLog) write(at time.Time, attrs ...slog.Attr) {
	if l == nil {
		return
	}
	r := slog.NewRecord(at, slog.LevelInfo, "", 0)
	r.AddAttrs(attrs...)
	l.h.Handle(context.Background(), r)
}

// callEntry is the log line of one call: which tool, how long, how much came back and, when the call
// failed, the error's kind or the reason auth refused the request.
type callEntry struct {
	tool      string     // "" for a request refused before a tool was named
	rows      *int       // search tools
	truncated *bool      // search tools
	found     *bool      // get_user_profile
	subject   string     // with auth: a keyed hash of the token's subject
	kind      fault.Kind // the error's kind, when the call failed
	refused   reason     // why auth refused the request, when it did
}

// call writes the line of a call that started at start and ends now; its time is the start.
func (l *eventLog) call(e callEntry, start time.Time) {
	if l == nil {
		return
	}
	attrs := make([]slog.Attr, 0, 6)
	if e.tool != "" {
		attrs = append(attrs, slog.String("tool", e.tool))
	}
	attrs = append(attrs, slog.Float64("ms", math.Round(float64(l.now().Sub(start).Microseconds())/10)/100))
	if e.rows != nil {
		attrs = append(attrs, slog.Int("rows", *e.rows))
	}
	if e.truncated != nil {
		attrs = append(attrs, slog.Bool("truncated", *e.truncated))
	}
	if e.found != nil {
		attrs = append(attrs, slog.Bool("found", *e.found))
	}
	if e.subject != "" {
		attrs = append(attrs, slog.String("subject", e.subject))
	}
	switch {
	case e.kind != "":
		attrs = append(attrs, slog.String("refusal", string(e.kind)))
	case e.refused != "":
		attrs = append(attrs, slog.String("refusal", string(e.refused)))
	}
	l.write(start, attrs...)
}

// start writes the line a server starts with: where it serves (stdio, or the URL of its HTTP
// endpoint), the build it opened (or, with several sites, extra: each site's) and, with --metrics, the
// URL of its health and metrics listener.
func (l *eventLog) start(serving, build, metrics string, extra ...slog.Attr) {
	if l == nil {
		return
	}
	attrs := []slog.Attr{slog.String("serving", serving)}
	if build != "" {
		attrs = append(attrs, slog.String("build", build))
	}
	attrs = append(attrs, extra...)
	if metrics != "" {
		attrs = append(attrs, slog.String("metrics", metrics))
	}
	l.write(l.now(), attrs...)
}

// warning writes a warning at start.
func (l *eventLog) warning(warning string) {
	if l != nil {
		l.write(l.now(), slog.String("warning", warning))
	}
}

// worker writes what happened to a worker process: never its query.
func (l *eventLog) worker(ev worker.Event) {
	if l == nil {
		return
	}
	attrs := []slog.Attr{slog.String("worker", ev.Worker), slog.Int("pid", ev.PID)}
	if ev.Exit != "" {
		attrs = append(attrs, slog.String("exit", ev.Exit))
	}
	l.write(l.now(), attrs...)
}

// keysFailed writes the line of a failed fetch of the issuer's key set: the keys fetched before stay
// in use.
func (l *eventLog) keysFailed(err error) {
	if l != nil {
		l.write(l.now(), slog.String("keys", "fetch_failed"), slog.String("error", err.Error()))
	}
}

// stop writes the line a drain ends with: how long it took, and how many calls it had to cut off.
func (l *eventLog) stop(took time.Duration, cut int) {
	if l == nil {
		return
	}
	attrs := []slog.Attr{slog.String("stopped", "drained"), slog.Float64("ms", float64(took.Milliseconds()))}
	if cut > 0 {
		attrs = append(attrs, slog.Int("cut", cut))
	}
	l.write(l.now(), attrs...)
}
