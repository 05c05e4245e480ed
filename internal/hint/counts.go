package hint

// The rows of the query's FROM that match some of its WHERE clause's AND parts, counted by DuckDB, and
// the parts as SQL, for the hints that name parts (ranges.go, unmatched.go, conflict.go). The
// statements are written from the query's own parse (querytree.Template, Pieces, Deparse) and run only as
// the checked statement guard.Check returns for them, under the query's policy: DuckDB's text is the
// agent's own in another order, so it is checked like any query of the agent's.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
)

// counter writes the statements that count the rows of one SELECT's FROM matching some of its parts.
type counter struct {
	ctx      context.Context
	conn     *database.Conn
	policy   guard.Policy
	sel      querytree.Select // the query's SELECT
	template querytree.Select // SELECT count(*)
}

func newCounter(ctx context.Context, conn *database.Conn, sel querytree.Select, policy guard.Policy) (*counter, bool) {
	t, ok := querytree.Template(ctx, conn, "SELECT count(*)")
	if !ok {
		return nil, false
	}
	return &counter{ctx: ctx, conn: conn, policy: policy, sel: sel, template: t}, true
}

// count is the checked statement of SELECT count(*) over the query's FROM (and its CTEs) where all
// the parts hold; ok is false when DuckDB cannot write it or the guard refuses what it wrote.
func (c *counter) count(parts []querytree.Expr) (*guard.Checked, bool) {
	texts, ok := querytree.Deparse(c.ctx, c.conn, c.template.With(querytree.Pieces{From: c.sel.From(), CTEs: c.sel, Where: querytree.And(parts...)}))
	if !ok {
		return nil, false
	}
	return c.check(texts[0], 1)
}

// truths is the checked statement of SELECT <part 1>, <part 2>, ..., count(*) over the query's FROM
// (and its CTEs) GROUP BY ALL: the rows where all the parts of a set hold are those of the groups
// where each is true, as a WHERE clause keeps them. texts are the parts as condition gives them; both
// come from one call to DuckDB.
func (c *counter) truths(parts []querytree.Expr) (count *guard.Checked, texts []string, ok bool) {
	if len(parts) == 0 || len(parts) > maxParts {
		return nil, nil, false
	}
	list := append(append([]querytree.Expr{}, parts...), c.template.List()...)
	sels := []querytree.Select{c.template.With(querytree.Pieces{From: c.sel.From(), CTEs: c.sel, List: list, GroupAll: true})}
	for _, p := range parts {
		sels = append(sels, c.template.With(querytree.Pieces{Where: p}))
	}
	out, ok := querytree.Deparse(c.ctx, c.conn, sels...)
	if !ok {
		return nil, nil, false
	}
	texts = make([]string, len(parts))
	for i, text := range out[1:] {
		if texts[i], ok = conditionText(text); !ok {
			return nil, nil, false
		}
	}
	groups := 1 // every combination of true, false and NULL
	for range parts {
		groups *= 3
	}
	count, ok = c.check(out[0], groups)
	return count, texts, ok
}

// valuesOf is the checked statement of SELECT <expr>, count(*) over the query's FROM (and its CTEs)
// where all the parts hold, GROUP BY ALL: the values expr takes in those rows, at most maxGroups (and
// one more, to tell that there are more).
func (c *counter) valuesOf(expr querytree.Expr, parts []querytree.Expr) (*guard.Checked, bool) {
	list := append([]querytree.Expr{expr}, c.template.List()...)
	texts, ok := querytree.Deparse(c.ctx, c.conn, c.template.With(querytree.Pieces{From: c.sel.From(), CTEs: c.sel, Where: querytree.And(parts...), List: list, GroupAll: true}))
	if !ok {
		return nil, false
	}
	return c.check(texts[0], maxGroups)
}

// maxGroups is the most values valuesOf reads.
const maxGroups = 1000

// condition is one part as SQL, without the parentheses around it; only shown, never run.
func (c *counter) condition(part querytree.Expr) (string, bool) {
	out, ok := querytree.Deparse(c.ctx, c.conn, c.template.With(querytree.Pieces{Where: part}))
	if !ok {
		return "", false
	}
	return conditionText(out[0])
}

// check is Check of a statement DuckDB wrote back from the query's parts.
func (c *counter) check(text string, rowCap int) (*guard.Checked, bool) {
	checked, err := guard.Check(c.ctx, c.conn, text, c.policy, rowCap)
	return checked, err == nil
}

// conditionText is the condition of "SELECT count_star() WHERE <condition>", as DuckDB writes a part
// back, without the parentheses around it.
func conditionText(text string) (string, bool) {
	const prefix = "SELECT count_star() WHERE "
	if !strings.HasPrefix(text, prefix) {
		return "", false
	}
	text = strings.TrimSpace(strings.TrimPrefix(text, prefix))
	if strings.HasPrefix(text, "(") && strings.HasSuffix(text, ")") && balanced(text[1:len(text)-1]) {
		text = text[1 : len(text)-1]
	}
	return text, true
}

// balanced reports whether s's parentheses pair up, so the ones around it can go.
func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// partRunner counts the rows of the query's FROM that match some of its parts, for one call.
type partRunner struct {
	ctx     context.Context
	conn    *database.Conn
	counter *counter // nil when DuckDB could not parse the template: nothing is counted
	parts   []querytree.Expr
	groups  []truthGroup // from countAll; nil: each count asks DuckDB
	texts   []string     // by part, from countAll
}

// truthGroup is how many rows of the query's FROM give its parts these truth values.
type truthGroup struct {
	truth []database.NullBool
	n     int64
}

// newPartRunner counts the parts of sel's WHERE clause: all at once (countAll), or, for a plain
// SELECT with one part that found nothing, none at all (no row passes its one part).
func newPartRunner(ctx context.Context, conn *database.Conn, sel querytree.Select, parts []querytree.Expr, policy guard.Policy) *partRunner {
	r := &partRunner{ctx: ctx, conn: conn, parts: parts}
	if len(parts) == 0 {
		return r
	}
	var ok bool
	if r.counter, ok = newCounter(ctx, conn, sel, policy); !ok {
		return r
	}
	if len(parts) == 1 && sel.EmptyMeansNoMatch() {
		r.groups = []truthGroup{} // the query found none: nothing to count
	} else {
		r.countAll()
	}
	return r
}

// countAll reads in one statement how many rows of the query's FROM each combination of its parts'
// truth values holds, from which every count is summed, and names every part: two round trips in
// all. When DuckDB cannot run them together (a part that is no boolean, an error in a part that the
// query's other parts kept away), count and text ask one at a time.
func (r *partRunner) countAll() {
	count, texts, ok := r.counter.truths(r.parts)
	if !ok {
		return
	}
	groups := []truthGroup{}
	execErr, readErr := r.conn.Run(r.ctx, count, func(rows *database.Stream) error {
		vals := make([]any, len(r.parts)+1)
		for {
			if more, err := rows.Next(vals); err != nil || !more {
				return err
			}
			g := truthGroup{truth: make([]database.NullBool, len(r.parts))}
			for i := range g.truth {
				switch v := vals[i].(type) {
				case bool:
					g.truth[i] = database.NullBool{Bool: v, Valid: true}
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
	if r.counter == nil {
		return 0, false
	}
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
	sub := make([]querytree.Expr, len(set))
	for i, k := range set {
		sub[i] = r.parts[k]
	}
	count, ok := r.counter.count(sub)
	if !ok {
		return 0, false
	}
	var n int64
	execErr, readErr := r.conn.Run(r.ctx, count, func(rows *database.Stream) error {
		vals := make([]any, 1)
		if more, err := rows.Next(vals); !more {
			return cmp.Or(err, io.EOF)
		}
		var ok bool
		if n, ok = vals[0].(int64); !ok {
			return fmt.Errorf("count is %T", vals[0])
		}
		return nil
	})
	return n, execErr == nil && readErr == nil
}

// valuesUnder are the texts expr takes in the rows of the query's FROM that match all the parts of
// set (each element of a list), nil when no row matches them; ok is false when DuckDB could not say,
// when they are more than maxGroups, or when a value is neither text nor a list of texts.
func (r *partRunner) valuesUnder(expr querytree.Expr, set []int) (map[string]bool, bool) {
	if r.counter == nil {
		return nil, false
	}
	sub := make([]querytree.Expr, len(set))
	for i, k := range set {
		sub[i] = r.parts[k]
	}
	run, ok := r.counter.valuesOf(expr, sub)
	if !ok {
		return nil, false
	}
	var values map[string]bool
	rows := 0
	execErr, readErr := r.conn.Run(r.ctx, run, func(rs *database.Stream) error {
		vals := make([]any, 2)
		for {
			if more, err := rs.Next(vals); err != nil || !more {
				return err
			}
			if rows++; rows > maxGroups {
				return errors.New("too many values")
			}
			if values == nil {
				values = map[string]bool{}
			}
			switch v := vals[0].(type) {
			case nil:
			case string:
				values[v] = true
			case []any:
				for _, e := range v {
					if s, ok := e.(string); ok {
						values[s] = true
					} else if e != nil {
						return fmt.Errorf("a list of %T", e)
					}
				}
			default:
				return fmt.Errorf("a value of %T", v)
			}
		}
	})
	return values, execErr == nil && readErr == nil
}

// text is part k as SQL, for the hint.
func (r *partRunner) text(k int) string {
	var text string
	if k < len(r.texts) {
		text = r.texts[k]
	} else if r.counter == nil {
		return "a condition"
	} else if t, ok := r.counter.condition(r.parts[k]); ok {
		text = t
	} else {
		return "a condition"
	}
	return clipText(operators.Replace(text), 160)
}

// operators are DuckDB's internal names of LIKE and its kin, as the deserialized SQL spells them.
var operators = strings.NewReplacer(" !~~* ", " NOT ILIKE ", " !~~~ ", " NOT GLOB ", " !~~ ", " NOT LIKE ",
	" ~~* ", " ILIKE ", " ~~~ ", " GLOB ", " ~~ ", " LIKE ")
