// Package hint explains an answer to the agent that asked: why a query found no rows (Explain: a
// condition that matches nothing and what its column holds instead, where a label's word occurs in
// text, the dates the build holds, the AND parts that never meet), what to keep in mind of the rows it
// found (HoursNotes: stores of unknown hours that the query's other conditions let through; OfferNotes,
// PriceNotes, InjectionNotes), and what a DuckDB error means (ParseError, ExplainError).
//
// A hint is a value: its Kind, the condition it is about and its text. Each kind is found by one
// analyzer, in a file of its own, looking at one condition, one AND part or the whole query; Explain
// runs them in the order of the analyzers list and composes what they report, and Render writes the
// hints as the one line the agent reads. What the analyzers share (does a condition match a row alone,
// its column's closest values, the count of rows matching some AND parts, a column's range) is read
// once per call by the pass (pass.go), and what depends only on the build's data once per build
// (cache.go).
//
// The hints read the build through the call's database.Conn and nothing else: ctool's own SQL (guard.SQL,
// every value bound), or statements written from the query's own parse (querytree.Template, Pieces,
// Deparse), which run only as the checked statement guard.Check returns for them under the query's
// policy (counts.go, hours.go).
package hint

import (
	"context"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// Kind is what a hint says.
type Kind string

// Hint is one remark on an answer.
type Hint struct {
	Kind      Kind
	Condition string // the condition it is about, as SQL ("" when it is about the whole answer)
	Text      string // what it says, one clause that reads on its own
}

// Render writes hints as the one line an answer carries.
func Render(hints []Hint) string {
	texts := make([]string, len(hints))
	for i, h := range hints {
		texts[i] = h.Text
	}
	return strings.Join(texts, "; ")
}

// Query is the query an answer answers.
type Query struct {
	Text      string
	Statement map[string]any  // the guard's parse of Text (guard.Checked.Statement); nil: parsed here
	Dataset   *schema.Dataset // it was accepted under guard.ForDataset(Dataset): statements written from it are checked under that policy
}

// statement is q's parse: the guard's, when the caller has it, else parsed here once and kept in q for
// the other analyses of the same answer. False when the text does not parse.
func (q *Query) statement(ctx context.Context, conn *database.Conn) (map[string]any, bool) {
	if q.Statement == nil {
		stmt, err := guard.Parse(ctx, conn, q.Text) // the guard's own parse: the same reading it accepted
		if err != nil {
			return nil, false
		}
		q.Statement = stmt
	}
	return q.Statement, true
}

// scope is what an analyzer looks at, one at a time.
type scope int

const (
	eachCondition scope = iota // each condition on a public column, in every SELECT of the query (conditions.go)
	eachPart                   // each AND part of the top SELECT's WHERE clause
	wholeQuery
)

// analyzer finds one kind of hint. run reports the hints of the at'th thing of its scope (0 for the
// whole query), reading the query and the build through the pass.
type analyzer struct {
	scope scope
	run   func(p *pass, at int) []Hint
}

// analyzers are the kinds of hint of an empty answer. A scope's hints come before the next scope's,
// and the hints of one condition or part stay together in this order.
var analyzers = []*analyzer{
	noMatch,     // nomatch.go: the condition matches no row of its relation
	heldValues,  // values.go: what its column holds instead
	lookAlike,   // lookalike.go: invisible or look-alike characters of a close value
	folded,      // folded.go: the rows it matches written with fold(), as names are typed
	occurrences, // occurs.go: where a label's word occurs in text
	ranges,      // ranges.go: the dates or numbers the build holds, for a part that matches nothing
	unmatched,   // unmatched.go: a part that matches no row by itself, otherwise unexplained
	conflict,    // conflict.go: parts that match rows alone but none together
	leftOut,     // leftout.go: the conditions and parts past what the hints read
}

// Explain says why q found no rows; nil when there is nothing to say, or when the context ends first.
func Explain(ctx context.Context, conn *database.Conn, cache *Cache, q Query) []Hint {
	p, ok := newPass(ctx, conn, cache, q)
	if !ok {
		return nil
	}
	var out []Hint
	for _, s := range []scope{eachCondition, eachPart, wholeQuery} {
		for at := range p.size(s) {
			for _, a := range analyzers {
				if a.scope != s {
					continue
				}
				hs := a.run(p, at)
				if ctx.Err() != nil {
					return nil
				}
				out = append(out, hs...)
			}
		}
	}
	return out
}
