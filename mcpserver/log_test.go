package mcpserver

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLogWrite(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 30, 0, 500_000_000, time.FixedZone("JST", 9*3600))
	rows, cut := 3, false
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"call", callEntry{Tool: "search_stores", MS: 1.25, Rows: &rows, Truncated: &cut},
			`{"time":"2026-11-24T00:30:00.5Z","tool":"search_stores","ms":1.25,"rows":3,"truncated":false}`},
		{"empty", struct{}{}, `{"time":"2026-11-24T00:30:00.5Z"}`},
		{"not an object", 3, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			newEventLog(&b).write(at, tc.v)
			want := tc.want
			if want != "" {
				want += "\n"
			}
			if b.String() != want {
				t.Errorf("got  %q\nwant %q", b.String(), want)
			}
		})
	}
	var nilLog *eventLog
	nilLog.warning("nowhere") // a nil Log writes nothing, and does not panic
}

func TestLogLinesDoNotInterleave(t *testing.T) {
	var b bytes.Buffer
	l := newEventLog(&b)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				l.warning(strings.Repeat("x", 4000))
			}
		}()
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
