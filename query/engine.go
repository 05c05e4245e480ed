// Package query is the engine: it runs one agent query on the current build, checked by the guard,
// under the row cap and its time limit (deadlines.go), asks hint/ to explain the answer, and gives a
// Result (result.go), many queries at once; it also reads from a build what the descriptions and an
// agent's session are told of it (Vocabulary, Facts). Showing a Result is internal/render's job, and
// shipping it between processes internal/worker's.
package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/hint"
	"github.com/azabudai/ctool/schema"
)

// Engine runs queries on the current build of a database.
type Engine struct {
	live   *database.Live
	shapes shapes      // proved query shapes (shape.go)
	once   bool        // the engine answers one query: it learns no shapes
	hints  hint.Caches // what the hints read of each build
}

// NewEngine returns an engine over live.
func NewEngine(live *database.Live) *Engine { return &Engine{live: live} }

// ForOneQuery keeps e from learning query shapes: a process that answers one query (ctool query's
// worker) would pay for proving a shape it never uses.
func (e *Engine) ForOneQuery() *Engine {
	e.once = true
	return e
}

// Query checks sqlText with the guard and runs it with the row cap. Errors are *fault.Error: refused
// (by the guard), sql_error (DuckDB's own message), timeout, no_database, or internal.
func (e *Engine) Query(ctx context.Context, d *schema.Dataset, sqlText string) (*Result, error) {
	if strings.TrimSpace(sqlText) == "" {
		return nil, refusal(&guard.Rejection{Refused: "empty query", Reason: "No SQL was given.", Hint: "Pass one SELECT statement, e.g. SELECT * FROM " + d.Table + " LIMIT 5."})
	}
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := e.query(ctx, d, sqlText)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-ctx.Done():
	}
	select {
	case a := <-done:
		return a.res, a.err
	case <-time.After(StopGrace): // the caller gets its answer; the query keeps its connection until DuckDB lets it go
		return nil, stopped(ctx)
	}
}

func (e *Engine) query(ctx context.Context, d *schema.Dataset, sqlText string) (res *Result, err error) {
	err = e.onBuild(ctx, func(b *database.Build, conn *database.Conn) error {
		build := b.ID
		shaped, hasShape := guard.Shape(sqlText)
		key := shapeKey{build: build, dataset: d.Name, shape: shaped.Text}
		if hasShape {
			var ok bool
			var offers []hint.Hint
			if res, offers, ok = e.byShape(ctx, conn, key, d, shaped); ok {
				// The offer notes are the shape's; the other notes count this query's own rows.
				e.annotate(ctx, conn, build, &hint.Query{Text: sqlText, Dataset: d}, res, offers)
				return nil
			}
			if ctx.Err() != nil {
				return stopped(ctx)
			}
		}
		policy := guard.ForDataset(d)
		checked, err := guard.Check(ctx, conn, sqlText, policy, schema.RowCap)
		if err != nil {
			return failure(ctx, err)
		}
		// The checked statement is the same text for every query (the query is its argument), so it
		// stays prepared on the connection; a worker started with --warm-up prepares it before its
		// first call (worker.Options.WarmUp).
		execErr, err := conn.Run(ctx, checked, func(rows *database.Stream) (err error) {
			res, err = readResult(ctx, d, policy, checked.Rows(), rows)
			return err
		})
		if execErr != nil {
			return hint.ExplainError(failure(ctx, withoutExcerpt(execErr, checked.Text())), sqlText)
		}
		if err != nil {
			return err
		}
		cache := e.hints.For(build)
		q := hint.Query{Text: sqlText, Statement: checked.Statement(), Dataset: d}
		offers := hint.OfferNotes(ctx, conn, &q)
		if len(res.Rows) == 0 && !res.Truncated { // LIMIT 0 of rows that match explains nothing
			res.Hint = hint.Render(hint.Explain(ctx, conn, cache, q)) // the rows are closed: the hints use the same connection
		} else if hasShape && !e.once {
			e.learnShape(ctx, conn, key, d, sqlText, shaped, res, offers)
		}
		e.annotate(ctx, conn, build, &q, res, offers)
		return nil
	})
	return res, err
}

// annotate gives res, the answer to q on build, its note and its build's id: the one place a
// result's notes are composed, whichever path answered it (a query shape's statement or the full
// path). The note says first the cells whose text addresses an AI agent, which bear on how every row
// is read, then the offers tested by their free text (offers: the full path's, or the shape's, kept),
// then the stores of unknown hours and the prices the rule could not read, which count q's own rows.
func (e *Engine) annotate(ctx context.Context, conn *database.Conn, build string, q *hint.Query, res *Result, offers []hint.Hint) {
	cache := e.hints.For(build)
	notes := hint.InjectionNotes(addressedCells(res))
	notes = append(notes, offers...) // a new slice: offers may be a query shape's, kept
	notes = append(notes, hint.HoursNotes(ctx, conn, cache, q)...)
	notes = append(notes, hint.PriceNotes(ctx, conn, cache, q)...)
	res.Note = hint.Render(notes)
	res.Build = build
}

// onBuild runs f on a connection of the current build, which is f's alone and ends with it (it serves
// one call: database.File.Conn), telling f the build (its id, its record).
func (e *Engine) onBuild(ctx context.Context, f func(b *database.Build, conn *database.Conn) error) error {
	b, release, err := e.live.Acquire(ctx)
	if err != nil {
		return failure(ctx, err)
	}
	defer release()
	conn, err := b.Conn(ctx)
	if err != nil {
		return failure(ctx, err)
	}
	defer conn.Close()
	return f(b, conn)
}

// readResult keeps at most limit rows (guard.Checked.Rows: the query's own LIMIT or the row cap), and
// says Truncated when one more came back, leaving out the policy's hidden columns by name.
func readResult(ctx context.Context, d *schema.Dataset, policy guard.Policy, limit int, rows *database.Stream) (*Result, error) {
	names, types := rows.Columns(), rows.Types()
	res := &Result{Dataset: d, Columns: []Column{}, Rows: [][]any{}, Omitted: []string{}}
	var keep []int
	for i, name := range names {
		if policy.IsHidden(name) {
			res.Omitted = append(res.Omitted, name)
			continue
		}
		res.Columns = append(res.Columns, Column{Name: name, Type: types[i]})
		keep = append(keep, i)
	}
	if len(res.Columns) == 0 && len(res.Omitted) > 0 {
		return nil, refusal(&guard.Rejection{Refused: "a result of only " + strings.Join(res.Omitted, ", "),
			Reason: strings.Join(res.Omitted, ", ") + " is internal to " + d.Name + " and never shown.",
			Hint:   "Select the columns to show (e.g. store_name), and use it only in WHERE or JOIN."})
	}
	raw := make([]any, len(names))
	// The budget runs while values are converted: a result never grows past MaxResultBytes in memory.
	size := &budget{left: MaxResultBytes}
	for {
		more, err := rows.Next(raw)
		if err != nil {
			return nil, failure(ctx, err)
		}
		if !more {
			break
		}
		if len(res.Rows) == limit {
			res.Truncated = true
			break
		}
		values := make([]any, len(keep))
		for j, i := range keep {
			values[j] = jsonValue(raw[i], res.Columns[j].Type, size)
			raw[i] = nil
		}
		if size.exceeded() {
			return nil, &fault.Error{Kind: fault.KindTooLarge, Message: fmt.Sprintf("the result is too large (over %d KiB in %d rows): select fewer or shorter columns, or use left(column, 200)", MaxResultBytes>>10, len(res.Rows)+1)}
		}
		res.Rows = append(res.Rows, values)
	}
	return res, nil
}

func refusal(r *guard.Rejection) *fault.Error {
	if r.Parse != "" {
		return hint.ParseError(r)
	}
	return &fault.Error{Kind: fault.KindRefused, Message: r.Error(), Err: r}
}

// failure explains an error met while checking or running a query.
func failure(ctx context.Context, err error) error {
	var rej *guard.Rejection
	var ce *fault.Error
	switch {
	case errors.As(err, &rej):
		return refusal(rej)
	case ctx.Err() != nil:
		return stopped(ctx)
	case errors.As(err, &ce):
		return ce
	}
	// DuckDB's message may quote megabytes of the query's own values: the start says what went wrong.
	msg := fault.Bounded(err.Error(), fault.MaxMessageBytes)
	if strings.HasPrefix(msg, "Out of Memory Error") {
		// DuckDB suggests changing settings, with a link to its guide; an agent can do neither, so say
		// what it can do instead.
		if i := strings.Index(msg, "\n\nPossible solutions:"); i >= 0 {
			msg = msg[:i]
		}
		msg += "\n(settings cannot be changed here: select fewer rows or shorter values, filter before aggregating)"
	}
	return &fault.Error{Kind: fault.KindSQL, Message: msg, Err: err}
}

// withoutExcerpt drops the "LINE 1: ..." excerpt DuckDB adds to an error when it quotes the row-cap
// statement around the agent's query rather than the query itself: the agent never wrote that text.
func withoutExcerpt(err error, wrapper string) error {
	msg := err.Error()
	i := strings.Index(msg, "\n\nLINE ")
	if i < 0 || !strings.Contains(msg[i:], wrapper) {
		return err
	}
	return &fault.Error{Kind: fault.KindSQL, Message: msg[:i], Err: err}
}

// Stopped is the error of a query whose context ended before it answered, as Query gives it: a
// timeout when its deadline passed, "cancelled" when its caller gave up.
func Stopped(ctx context.Context) error { return stopped(ctx) }

// stopped is the error of a query whose context ended: its deadline passed or its caller cancelled it.
func stopped(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &fault.Error{Kind: fault.KindTimeout, Message: "the query was cancelled", Err: ctx.Err()}
	}
	return &fault.Error{Kind: fault.KindTimeout, Err: ctx.Err(),
		Message: "the query ran past its time limit and was stopped; make it cheaper (filter first, avoid large cross joins)"}
}
