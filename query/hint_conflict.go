package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/textout"
)

// An empty answer whose conditions each match rows alone is the most puzzling kind: the hint names the
// smallest set of conditions (the WHERE clause's AND parts) that match nothing together, with how many
// rows each part matches. A part that matches nothing alone and reads a date or the clock gets the
// date range of the build (hint_dates.go). The parts are run as the query wrote them, over its own
// FROM, as SELECT count(*): the guard accepted them in the query, and they run on the same connection.

// maxParts is the most AND parts of one WHERE clause looked at; larger sets are left to the probes.
const maxParts = 8

// conjunctHints explains an empty result by its WHERE clause's AND parts; probed says whether the
// per-condition probes already explained it.
func conjunctHints(ctx context.Context, conn *guard.Conn, cache *buildHints, stmt map[string]any, policy guard.Policy, probed bool) []string {
	sel, ok := guard.TopSelect(stmt)
	parts := sel.AndParts()
	if !ok || len(parts) == 0 || len(parts) > maxParts {
		return nil
	}
	scope := scopeOf(sel, sel.CTEs())
	if len(parts) == 1 && probed && !mayDateHint(parts[0], scope) {
		return nil // matching rows or not, one part the probes explained has nothing to add
	}
	counter, ok := guard.NewCounter(ctx, conn, sel, policy)
	if !ok {
		return nil
	}
	r := &partRunner{ctx: ctx, conn: conn, counter: counter, parts: parts}
	if len(parts) == 1 && sel.EmptyMeansNoMatch() {
		r.groups = []truthGroup{} // the query found none: no row passes its one part, nothing to count
	} else {
		r.countAll()
	}
	counts := make([]int64, len(parts))
	var hints []string
	zero := false
	for i, p := range parts {
		n, ok := r.count(i)
		if !ok {
			return hints
		}
		counts[i] = n
		if n > 0 {
			continue
		}
		zero = true
		if !readsColumn(p) {
			continue // a constant (WHERE false) needs no explaining
		}
		if h := dateHint(ctx, conn, cache, p, scope); h != "" && probed {
			hints = append(hints, h) // the probe already named the condition
		} else if h != "" {
			hints = append(hints, r.text(i)+" matches no row: "+h)
		} else if !probed {
			hints = append(hints, r.text(i)+" matches no row by itself")
		}
	}
	if zero || len(parts) < 2 {
		return hints
	}
	// Every part matches rows alone: find the smallest set that matches none together.
	for _, set := range conflictSets(len(parts)) {
		n, ok := r.count(set...)
		if !ok {
			return hints
		}
		if n > 0 {
			continue
		}
		var each []string
		var dates []string
		for _, k := range set {
			each = append(each, fmt.Sprintf("%s matches %d %s", r.text(k), counts[k], textout.Plural(int(counts[k]), "row", "rows")))
			if h := dateHint(ctx, conn, cache, parts[k], scope); h != "" {
				dates = append(dates, h)
			}
		}
		h := "no row matches these conditions together, though each matches rows alone: " + strings.Join(each, ", ")
		if len(dates) > 0 {
			h += "; " + dates[0]
		}
		return append(hints, h)
	}
	return hints
}

// conflictSets are the sets of n parts looked at for a conflict, smallest first: pairs, and triples
// of at most six parts.
func conflictSets(n int) [][]int {
	var sets [][]int
	for size := 2; size <= min(3, n); size++ {
		if size == 3 && n > 6 {
			break
		}
		sets = append(sets, combinations(n, size)...)
	}
	return sets
}

// partRunner counts the rows of the query's FROM that match some of its parts.
type partRunner struct {
	ctx     context.Context
	conn    *guard.Conn
	counter *guard.Counter
	parts   []guard.Expr
	groups  []truthGroup // from countAll; nil: each count asks DuckDB
	texts   []string     // by part, from countAll
}

// truthGroup is how many rows of the query's FROM give its parts these truth values.
type truthGroup struct {
	truth []sql.NullBool
	n     int64
}

// countAll reads in one statement how many rows of the query's FROM each combination of its parts'
// truth values holds, from which every count is summed, and names every part: two round trips in
// all. When DuckDB cannot run them together (a part that is no boolean, an error in a part that the
// query's other parts kept away), count and text ask one at a time.
func (r *partRunner) countAll() {
	count, texts, ok := r.counter.Truths(r.parts)
	if !ok {
		return
	}
	groups := []truthGroup{}
	execErr, readErr := r.conn.Run(r.ctx, count, func(rows driver.Rows) error {
		vals := make([]driver.Value, len(r.parts)+1)
		for {
			if err := rows.Next(vals); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			g := truthGroup{truth: make([]sql.NullBool, len(r.parts))}
			for i := range g.truth {
				switch v := vals[i].(type) {
				case bool:
					g.truth[i] = sql.NullBool{Bool: v, Valid: true}
				case nil:
				default:
					return fmt.Errorf("part %d is %T, not a boolean", i, v)
				}
			}
			n, ok := vals[len(r.parts)].(int64)
			if !ok {
				return fmt.Errorf("count is %T", vals[len(r.parts)])
			}
			g.n = n
			groups = append(groups, g)
		}
	})
	if execErr != nil || readErr != nil {
		return
	}
	r.groups, r.texts = groups, texts
}

// count is how many rows of the query's FROM match all the parts of set: those of the groups where
// each is true, as a WHERE clause keeps them.
func (r *partRunner) count(set ...int) (int64, bool) {
	if r.groups != nil {
		var n int64
		for _, g := range r.groups {
			all := true
			for _, k := range set {
				all = all && g.truth[k].Valid && g.truth[k].Bool
			}
			if all {
				n += g.n
			}
		}
		return n, true
	}
	sub := make([]guard.Expr, len(set))
	for i, k := range set {
		sub[i] = r.parts[k]
	}
	count, ok := r.counter.Count(sub)
	if !ok {
		return 0, false
	}
	var n int64
	execErr, readErr := r.conn.Run(r.ctx, count, func(rows driver.Rows) error {
		vals := make([]driver.Value, 1)
		if err := rows.Next(vals); err != nil {
			return err
		}
		var ok bool
		if n, ok = vals[0].(int64); !ok {
			return fmt.Errorf("count is %T", vals[0])
		}
		return nil
	})
	return n, execErr == nil && readErr == nil
}

// text is part k as SQL, for the hint.
func (r *partRunner) text(k int) string {
	var text string
	if k < len(r.texts) {
		text = r.texts[k]
	} else if t, ok := r.counter.Condition(r.parts[k]); ok {
		text = t
	} else {
		return "a condition"
	}
	return clipText(operators.Replace(text), 160)
}

// operators are DuckDB's internal names of LIKE and its kin, as the deserialized SQL spells them.
var operators = strings.NewReplacer(" !~~* ", " NOT ILIKE ", " !~~~ ", " NOT GLOB ", " !~~ ", " NOT LIKE ",
	" ~~* ", " ILIKE ", " ~~~ ", " GLOB ", " ~~ ", " LIKE ")

// combinations lists the k-element subsets of 0..n-1 in order.
func combinations(n, k int) [][]int {
	var out [][]int
	var walk func(start int, cur []int)
	walk = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, append([]int{}, cur...))
			return
		}
		for i := start; i < n; i++ {
			walk(i+1, append(cur, i))
		}
	}
	walk(0, nil)
	return out
}

// readsColumn reports whether an expression reads a column.
func readsColumn(e guard.Expr) bool {
	reads := false
	e.Walk(func(e guard.Expr) bool {
		reads = e.Op() == guard.OpColumn
		return !reads
	})
	return reads
}
