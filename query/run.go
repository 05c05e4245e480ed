package query

import (
	"context"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
)

// rowReader is what readResult reads: a query's columns, then its rows one at a time.
type rowReader interface {
	columns() (names, types []string, err error)
	// next fills dest with the next row's values; false at the end.
	next(dest []any) (bool, error)
}

// runChecked runs the guard's checked statement on conn and hands its rows to read. The statement is
// kept prepared on the connection (it is the same text for every query: the query is its argument),
// and a worker started with --warm-up has it prepared before its first call (worker.Options.WarmUp).
// execErr is the statement's failure (DuckDB's message); an error of read comes back as it is.
func runChecked(ctx context.Context, conn *database.Conn, c *guard.Checked, read func(rowReader) error) (execErr, readErr error) {
	return conn.Run(ctx, c, func(rows *database.Stream) error {
		return read(streamRows{rows})
	})
}

// streamRows reads a Stream as rowReader.
type streamRows struct{ s *database.Stream }

func (r streamRows) columns() (names, types []string, err error) {
	return r.s.Columns(), r.s.Types(), nil
}

func (r streamRows) next(dest []any) (bool, error) { return r.s.Next(dest) }
