package query

import (
	"context"
	"database/sql"
	"fmt"
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
func conjunctHints(ctx context.Context, conn *sql.Conn, cache *buildHints, stmt map[string]any, probed bool) []string {
	sel, ok := guard.TopSelect(stmt)
	parts := sel.AndParts()
	if !ok || len(parts) == 0 || len(parts) > maxParts {
		return nil
	}
	counter, ok := guard.NewCounter(ctx, conn, sel)
	if !ok {
		return nil
	}
	r := &partRunner{ctx: ctx, conn: conn, counter: counter}
	scope := scopeOf(sel, sel.CTEs())
	counts := make([]int64, len(parts))
	var hints []string
	zero := false
	for i, p := range parts {
		n, ok := r.count(p)
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
			hints = append(hints, r.text(p)+" matches no row: "+h)
		} else if !probed {
			hints = append(hints, r.text(p)+" matches no row by itself")
		}
	}
	if zero || len(parts) < 2 {
		return hints
	}
	// Every part matches rows alone: find the smallest set that matches none together.
	for size := 2; size <= min(3, len(parts)); size++ {
		if size == 3 && len(parts) > 6 {
			break
		}
		for _, set := range combinations(len(parts), size) {
			sub := make([]guard.Expr, len(set))
			for i, k := range set {
				sub[i] = parts[k]
			}
			n, ok := r.count(sub...)
			if !ok {
				return hints
			}
			if n > 0 {
				continue
			}
			var each []string
			var dates []string
			for _, k := range set {
				each = append(each, fmt.Sprintf("%s matches %d %s", r.text(parts[k]), counts[k], textout.Plural(int(counts[k]), "row", "rows")))
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
	}
	return hints
}

// partRunner counts the rows of the query's FROM that match some of its parts.
type partRunner struct {
	ctx     context.Context
	conn    *sql.Conn
	counter *guard.Counter
}

// count is how many rows of the query's FROM match all the parts.
func (r *partRunner) count(parts ...guard.Expr) (int64, bool) {
	text, ok := r.counter.Count(parts)
	if !ok {
		return 0, false
	}
	var n int64
	if err := r.conn.QueryRowContext(r.ctx, text).Scan(&n); err != nil {
		return 0, false
	}
	return n, true
}

// text is a part as SQL, for the hint.
func (r *partRunner) text(part guard.Expr) string {
	text, ok := r.counter.Condition(part)
	if !ok {
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
