package query

import (
	"context"
	"database/sql"
	"encoding/json"
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
func conjunctHints(ctx context.Context, conn *sql.Conn, stmt map[string]any, probed bool) []string {
	sel, ok := guard.TopSelect(stmt)
	where := sel.Where()
	if !ok || !where.Valid() {
		return nil
	}
	var parts []any
	var flatten func(e guard.Expr)
	flatten = func(e guard.Expr) {
		if e.Op() == guard.OpAnd {
			for _, c := range e.Args() {
				flatten(c)
			}
			return
		}
		parts = append(parts, e.Node())
	}
	flatten(where)
	if len(parts) > maxParts {
		return nil
	}
	r := &partRunner{ctx: ctx, conn: conn, node: sel.Node(), where: where.Node()}
	if !r.init() {
		return nil
	}
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
		if h := dateHint(ctx, conn, p, scope); h != "" && probed {
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
			sub := make([]any, len(set))
			for i, k := range set {
				sub[i] = parts[k]
			}
			n, ok := r.count(r.and(sub))
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
				if h := dateHint(ctx, conn, parts[k], scope); h != "" {
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

// partRunner counts the rows of the query's FROM that match a WHERE of the caller's choosing.
type partRunner struct {
	ctx      context.Context
	conn     *sql.Conn
	node     map[string]any // the query's SELECT
	where    map[string]any // its WHERE clause, whose shape an AND of some parts copies
	template map[string]any // SELECT count(*), parsed
}

func (r *partRunner) init() bool {
	t, err := guard.Parse(r.ctx, r.conn, "SELECT count(*)")
	if _, ok := t["node"].(map[string]any); err != nil || !ok {
		return false
	}
	r.template = t
	return true
}

// statement is the template with the given FROM and WHERE, as SQL text.
func (r *partRunner) statement(from, where any, cte any) (string, bool) {
	node := map[string]any{}
	for k, v := range r.template["node"].(map[string]any) {
		node[k] = v
	}
	if from != nil {
		node["from_table"] = from
	}
	if cte != nil {
		node["cte_map"] = cte
	}
	node["where_clause"] = where
	stmt := map[string]any{"named_param_map": []any{}, "node": node}
	b, err := json.Marshal(map[string]any{"error": false, "statements": []any{stmt}})
	if err != nil {
		return "", false
	}
	var text string
	if err := r.conn.QueryRowContext(r.ctx, "SELECT json_deserialize_sql(CAST(? AS JSON))", string(b)).Scan(&text); err != nil {
		return "", false
	}
	return text, true
}

// count is how many rows of the query's FROM match where.
func (r *partRunner) count(where any) (int64, bool) {
	text, ok := r.statement(r.node["from_table"], where, r.node["cte_map"])
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
func (r *partRunner) text(part any) string {
	text, ok := r.statement(nil, part, nil)
	const prefix = "SELECT count_star() WHERE "
	if !ok || !strings.HasPrefix(text, prefix) {
		return "a condition"
	}
	text = strings.TrimSpace(strings.TrimPrefix(text, prefix))
	if strings.HasPrefix(text, "(") && strings.HasSuffix(text, ")") && balanced(text[1:len(text)-1]) {
		text = text[1 : len(text)-1]
	}
	return clipText(operators.Replace(text), 160)
}

// operators are DuckDB's internal names of LIKE and its kin, as the deserialized SQL spells them.
var operators = strings.NewReplacer(" !~~* ", " NOT ILIKE ", " !~~~ ", " NOT GLOB ", " !~~ ", " NOT LIKE ",
	" ~~* ", " ILIKE ", " ~~~ ", " GLOB ", " ~~ ", " LIKE ")

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

// and is the AND of parts, in the shape of the query's own WHERE.
func (r *partRunner) and(parts []any) any {
	if len(parts) == 1 {
		return parts[0]
	}
	node := map[string]any{"class": "CONJUNCTION", "type": "CONJUNCTION_AND", "alias": "", "query_location": r.where["query_location"]}
	if guard.ExprOf(r.where).Op() == guard.OpAnd {
		for k, v := range r.where {
			node[k] = v
		}
	}
	node["children"] = parts
	return node
}

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
func readsColumn(v any) bool {
	reads := false
	guard.ExprOf(v).Walk(func(e guard.Expr) bool {
		reads = e.Op() == guard.OpColumn
		return !reads
	})
	return reads
}
