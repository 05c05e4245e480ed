package build

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/duckdb/duckdb-go/v2"
)

// buildFailed explains a build that failed after validation passed: a file that could not be read or
// written is I/O, a deadline a timeout; anything else (DuckDB and validation disagreeing, say) is
// internal. DuckDB's messages may quote a line of the input: shown with its control characters escaped.
func buildFailed(err error, committed bool) error {
	var ce *fault.Error
	if errors.As(err, &ce) {
		return err
	}
	kind := fault.KindInternal
	var (
		pe *fs.PathError
		le *os.LinkError
		se *os.SyscallError
		de *duckdb.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		kind = fault.KindTimeout
	case errors.As(err, &pe), errors.As(err, &le), errors.As(err, &se),
		errors.As(err, &de) && (de.Type == duckdb.ErrorTypeIO || de.Type == duckdb.ErrorTypePermission):
		kind = fault.KindIO
	}
	what := "ingest failed; the database was not changed: "
	if committed {
		what = "ingest put the new build in place, then failed: "
	}
	if errors.Is(err, context.Canceled) {
		// Interrupted (SIGINT, SIGTERM): the temporary files are gone, the message says no more.
		if committed {
			return &fault.Error{Kind: kind, Message: "ingest put the new build in place, then was interrupted", Err: err}
		}
		return &fault.Error{Kind: kind, Message: "ingest was interrupted; the database was not changed", Err: err}
	}
	return &fault.Error{Kind: kind, Message: what + escape.Visible(err.Error()), Err: err}
}
