package query

import (
	"context"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// Facts are what an agent is told of the build a session starts on, to set today against the data:
// the place it describes, when it was made and the dates its events span.
type Facts struct {
	Build   string
	Place   schema.Place
	BuiltAt time.Time // zero when the record has no readable time
	// EventsFrom and EventsTo are the earliest start_date and the latest end_date of events_typed,
	// as ISO dates; "" when no event has one.
	EventsFrom, EventsTo string
}

// Facts reads the current build's Facts; the span of its events is read once per build (hint.Cache).
func (e *Engine) Facts(ctx context.Context) (Facts, error) {
	var f Facts
	err := e.onBuild(ctx, func(b *database.Build, conn *database.Conn) error {
		f = Facts{Build: b.ID, Place: b.Place()}
		f.BuiltAt, _ = time.Parse(time.RFC3339, b.Build[database.BuildTime])
		span := guard.Const("SELECT CAST(min(start_date) AS VARCHAR), CAST(max(end_date) AS VARCHAR) FROM events_typed")
		row, err := e.hints.For(b.ID).Row(ctx, conn, span, 2)
		if err != nil {
			return failure(ctx, err)
		}
		f.EventsFrom, f.EventsTo = row[0].String, row[1].String
		return nil
	})
	return f, err
}
