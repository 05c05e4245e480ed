package query

import "context"

// Stopped is the error of a query whose context ended before it answered, as Query gives it: a
// timeout when its deadline passed, "cancelled" when its caller gave up.
func Stopped(ctx context.Context) error { return stopped(ctx) }
