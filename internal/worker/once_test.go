package worker

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/schema"
)

// A query sent with the worker's start is answered as one sent after its greeting, whatever the
// worker does; none is left running.
func TestQueryFresh(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		worker  string // CTOOL_TEST_WORKER
		sql     string
		timeout time.Duration
		kind    fault.Kind // "" for an answer
	}{
		{"answer", "1", "pid", time.Minute, ""},
		{"a query longer than a pipe holds", "1", strings.Repeat("x", 300<<10), time.Minute, ""},
		{"refused", "1", "refused", time.Minute, fault.KindRefused},
		{"crash", "1", "crash", time.Minute, fault.KindCrashed},
		{"out of memory", "1", "oom", time.Minute, fault.KindTooLarge},
		{"past its deadline", "1", "slow", 300 * time.Millisecond, fault.KindTimeout},
		{"no database", "refuse", "pid", time.Minute, fault.KindNoDatabase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPool(Config{Max: 1, Grace: 200 * time.Millisecond, Command: func() *exec.Cmd {
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), "CTOOL_TEST_WORKER="+tc.worker)
				return cmd
			}})
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			res, err := p.queryFresh(ctx, schema.Stores, tc.sql)
			p.Close()
			if kids := children(t); len(kids) > 0 {
				t.Errorf("after Close, child processes are left: %v", kids)
			}
			if tc.kind == "" {
				if err != nil || len(res.Rows) != 1 {
					t.Fatalf("got %v, %v; want one row", res, err)
				}
				return
			}
			if kindOf(err) != tc.kind {
				t.Errorf("got %v (%q), want a %s error", err, kindOf(err), tc.kind)
			}
		})
	}
}
