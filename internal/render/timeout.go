package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/azabudai/ctool/internal/fault"
)

// TimeoutHint gives a query that ran past its time limit (err of kind timeout, ctx not cancelled by
// its caller) the hint every caller gives: a cheaper query and, where the caller may raise the limit
// (max > 0: ctool query's --timeout), a larger one. Any other error comes back unchanged.
func TimeoutHint(ctx context.Context, err error, limit, max time.Duration) error {
	e := fault.Explain(err)
	if e == nil || e.Kind != fault.KindTimeout || errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	if max > 0 {
		return e.WithHint(fmt.Sprintf("a cheaper query, or a larger --timeout (now %s, at most %s)", limit, max))
	}
	// An MCP client cannot change the server's timeout; it can make the query cheaper.
	return e.WithHint(fmt.Sprintf("a cheaper query: every call stops after %s", limit))
}
