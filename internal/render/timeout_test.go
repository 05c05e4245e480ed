package render

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
)

func TestTimeoutHint(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	sqlErr := &fault.Error{Kind: fault.KindSQL, Message: "bad"}
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		max      time.Duration
		wantKind fault.Kind
		wantHint string
	}{
		{"cli", expired, query.Stopped(expired), time.Minute, fault.KindTimeout, "a cheaper query, or a larger --timeout (now 5s, at most 1m0s)"},
		{"mcp", expired, query.Stopped(expired), 0, fault.KindTimeout, "a cheaper query: every call stops after 5s"},
		{"bare deadline", expired, context.DeadlineExceeded, 0, fault.KindTimeout, "a cheaper query: every call stops after 5s"},
		{"caller gave up", cancelled, query.Stopped(cancelled), 0, fault.KindTimeout, ""},
		{"other error", expired, sqlErr, time.Minute, fault.KindSQL, ""},
	} {
		got := fault.Explain(TimeoutHint(tc.ctx, tc.err, 5*time.Second, tc.max))
		if got.Kind != tc.wantKind || got.Hint != tc.wantHint {
			t.Errorf("%s: got %s %q, want %s %q", tc.name, got.Kind, got.Hint, tc.wantKind, tc.wantHint)
		}
	}
	if TimeoutHint(context.Background(), nil, time.Second, 0) != nil {
		t.Error("TimeoutHint(nil) is not nil")
	}
	if err := TimeoutHint(expired, sqlErr, time.Second, 0); !errors.Is(err, sqlErr) {
		t.Errorf("another error came back as %v", err)
	}
}
