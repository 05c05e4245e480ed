package mcpserver

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/worker"
)

// Every kind of line, whole: the fields and values docs/mcp.md shows operators, "time" first in UTC,
// no level or message.
func TestLogLines(t *testing.T) {
	now := time.Date(2026, 11, 24, 9, 30, 0, 500_000_000, time.FixedZone("JST", 9*3600))
	start := now.Add(-1234567 * time.Nanosecond)
	rows, cut := 3, false
	for _, tc := range []struct {
		name  string
		write func(l *eventLog)
		want  string
	}{
		{"search call", func(l *eventLog) {
			l.call(callEntry{tool: "search_stores", rows: &rows, truncated: &cut}, start)
		}, `{"time":"2026-11-24T00:30:00.498765433Z","tool":"search_stores","ms":1.23,"rows":3,"truncated":false}`},
		{"search call refused", func(l *eventLog) {
			l.call(callEntry{tool: "search_stores", rows: new(int), truncated: &cut, kind: fault.KindRefused}, now)
		}, `{"time":"2026-11-24T00:30:00.5Z","tool":"search_stores","ms":0,"rows":0,"truncated":false,"refusal":"refused"}`},
		{"profile not found", func(l *eventLog) {
			l.call(callEntry{tool: "get_user_profile", found: &cut, kind: fault.KindNotFound}, now.Add(-800*time.Microsecond))
		}, `{"time":"2026-11-24T00:30:00.4992Z","tool":"get_user_profile","ms":0.8,"found":false,"refusal":"not_found"}`},
		{"call with a subject", func(l *eventLog) {
			l.call(callEntry{tool: "get_user_profile", found: new(bool), subject: "9f86d081884c7d65", kind: fault.KindRefused}, now)
		}, `{"time":"2026-11-24T00:30:00.5Z","tool":"get_user_profile","ms":0,"found":false,"subject":"9f86d081884c7d65","refusal":"refused"}`},
		{"request refused before a tool", func(l *eventLog) {
			l.call(callEntry{refused: reasonMissing}, now)
		}, `{"time":"2026-11-24T00:30:00.5Z","ms":0,"refusal":"missing"}`},
		{"request refused for its scope", func(l *eventLog) {
			l.call(callEntry{tool: "get_user_profile", subject: "9f86d081884c7d65", refused: reasonScope}, now)
		}, `{"time":"2026-11-24T00:30:00.5Z","tool":"get_user_profile","ms":0,"subject":"9f86d081884c7d65","refusal":"scope"}`},
		{"start on stdio", func(l *eventLog) { l.start("stdio", "65f8f7a5b5bc", "") },
			`{"time":"2026-11-24T00:30:00.5Z","serving":"stdio","build":"65f8f7a5b5bc"}`},
		{"start over HTTP with metrics", func(l *eventLog) { l.start("http://127.0.0.1:8765/mcp", "65f8f7a5b5bc", "http://127.0.0.1:9465") },
			`{"time":"2026-11-24T00:30:00.5Z","serving":"http://127.0.0.1:8765/mcp","build":"65f8f7a5b5bc","metrics":"http://127.0.0.1:9465"}`},
		{"warning", func(l *eventLog) { l.warning("--http 0.0.0.0:8765 has no authentication: <&>") },
			`{"time":"2026-11-24T00:30:00.5Z","warning":"--http 0.0.0.0:8765 has no authentication: <&>"}`},
		{"worker crashed", func(l *eventLog) { l.worker(worker.Event{Worker: "crashed", PID: 4242, Exit: "exit status 2"}) },
			`{"time":"2026-11-24T00:30:00.5Z","worker":"crashed","pid":4242,"exit":"exit status 2"}`},
		{"worker event without an exit", func(l *eventLog) { l.worker(worker.Event{Worker: "killed", PID: 7}) },
			`{"time":"2026-11-24T00:30:00.5Z","worker":"killed","pid":7}`},
		{"key set fetch failed", func(l *eventLog) { l.keysFailed(errors.New("https://as.example/jwks: 503 Service Unavailable")) },
			`{"time":"2026-11-24T00:30:00.5Z","keys":"fetch_failed","error":"https://as.example/jwks: 503 Service Unavailable"}`},
		{"drained", func(l *eventLog) { l.stop(1234567*time.Microsecond, 0) },
			`{"time":"2026-11-24T00:30:00.5Z","stopped":"drained","ms":1234}`},
		{"drain cut short", func(l *eventLog) { l.stop(10*time.Second, 2) },
			`{"time":"2026-11-24T00:30:00.5Z","stopped":"drained","ms":10000,"cut":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			l := newEventLog(&b)
			l.now = func() time.Time { return now }
			tc.write(l)
			if got := b.String(); got != tc.want+"\n" {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	var none *eventLog // writes nothing, and does not panic
	none.warning("nowhere")
	none.call(callEntry{tool: "search_stores"}, now)
	if newEventLog(nil) != nil {
		t.Error("a log to no writer is not nil")
	}
}

// The lines of many goroutines at once, to a writer that takes no lock of its own: each whole.
func TestLogLinesDoNotInterleave(t *testing.T) {
	var b bytes.Buffer
	l := newEventLog(&b)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				l.warning(strings.Repeat("x", 4000))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, `{"time":"`) || !strings.HasSuffix(line, `"warning":"`+strings.Repeat("x", 4000)+`"}`) {
			t.Fatalf("line %.80q…", line)
		}
	}
}
