package query

// The shape path: a query whose shape (guard.Shape: its string literals as parameters) was proved on
// this build runs one statement kept prepared on the connection, with its own literals as arguments,
// instead of a parse for the guard and another for the run. Proving a shape takes the first query of
// that shape down the full path and then checks that the shape's statement gives the same answer for
// it; every shape learned, or refused, is remembered per build and dataset.

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/hint"
	"github.com/azabudai/ctool/schema"
)

// maxShapes bounds the shapes one engine remembers; past it they are forgotten and learned again.
const maxShapes = 256

type shapeKey struct{ build, dataset, shape string }

// shapeVerdict is what was decided for a shape: the statement that runs it, or nil when it cannot run
// in its queries' place, and the offer notes of its queries (hint.OfferNotes: they follow the shape's
// column references, never its literals, so each query's own are the first one's, and its queries are
// not parsed again for them). Every other note and hint depends on the literals, and is each call's.
type shapeVerdict struct {
	run    *guard.Checked
	offers []hint.Hint
}

type shapes struct {
	mu       sync.Mutex
	verdicts map[shapeKey]shapeVerdict
	hits     atomic.Int64 // queries answered by a shape's statement (for tests and benchmarks: export_test.go)
}

func (s *shapes) get(k shapeKey) (shapeVerdict, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.verdicts[k]
	return v, ok
}

func (s *shapes) put(k shapeKey, v shapeVerdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verdicts == nil || len(s.verdicts) >= maxShapes {
		s.verdicts = map[shapeKey]shapeVerdict{}
	}
	s.verdicts[k] = v
}

// byShape answers the query through its shape's statement when the shape was proved on this build.
// It answers only with rows: an empty answer needs the hints, and an error the full path's message,
// so both go down the full path (ok false, with no error unless the context ended).
func (e *Engine) byShape(ctx context.Context, conn *database.Conn, k shapeKey, d *schema.Dataset, s guard.Shaped) (*Result, []hint.Hint, bool) {
	v, known := e.shapes.get(k)
	if !known || v.run == nil {
		return nil, nil, false
	}
	run, ok := v.run.ForShape(s)
	if !ok {
		return nil, nil, false
	}
	res, err := e.runShape(ctx, conn, d, run)
	if err != nil || len(res.Rows) == 0 {
		return nil, nil, false
	}
	e.shapes.hits.Add(1)
	return res, v.offers, true
}

func (e *Engine) runShape(ctx context.Context, conn *database.Conn, d *schema.Dataset, run *guard.Checked) (res *Result, err error) {
	policy := guard.ForDataset(d)
	execErr, readErr := conn.Run(ctx, run, func(rows *database.Stream) error {
		res, err = readResult(ctx, d, policy, run.Rows(), rows)
		return err
	})
	if execErr != nil {
		return nil, execErr
	}
	return res, readErr
}

// learnShape decides whether the shape of sqlText, which the full path just answered with want, may
// answer its later queries: the guard must prove it (guard.CheckShape) and its statement must give
// want for sqlText's own literals. Only an answer with rows teaches: an empty one proves little.
func (e *Engine) learnShape(ctx context.Context, conn *database.Conn, k shapeKey, d *schema.Dataset, sqlText string, s guard.Shaped, want *Result, offers []hint.Hint) {
	if len(want.Rows) == 0 {
		return
	}
	if _, known := e.shapes.get(k); known {
		return
	}
	verdict := shapeVerdict{offers: offers}
	checked, err := guard.CheckShape(ctx, conn, sqlText, s, guard.ForDataset(d), schema.RowCap)
	if err == nil {
		got, err := e.runShape(ctx, conn, d, checked)
		if err == nil && sameAnswer(got, want) {
			verdict.run = checked
		}
	}
	if ctx.Err() != nil {
		return // a query stopped half-way proves nothing either way
	}
	e.shapes.put(k, verdict)
}

// sameAnswer reports whether two results carry the same columns, rows and flags.
func sameAnswer(a, b *Result) bool {
	return reflect.DeepEqual(a.Columns, b.Columns) && reflect.DeepEqual(a.Rows, b.Rows) &&
		a.Truncated == b.Truncated && reflect.DeepEqual(a.Omitted, b.Omitted)
}
