package guard

// Statements built from parts of an accepted query, for the hints of an empty result: the rows of its
// FROM that match some of its WHERE clause's AND parts are counted. The parts are the query's own AST,
// turned back into SQL by DuckDB (json_deserialize_sql), so nothing is spliced into text. DuckDB's text
// is the agent's own in another order, and it does not always quote what it writes back (a star's
// relation name comes back bare), so it is never run as it is: it goes through Check like any query
// of the agent's, under the same policy, and runs as the checked statement that Check returns.

import (
	"context"
	"strings"
)

// maxTruthGroups is the row cap of Truths' statement: every combination of true, false and NULL of
// the most parts a hint counts (query/hint_conflict.go reads at most 8).
const maxTruthGroups = 6561

// AndParts are the AND parts of the SELECT's WHERE clause (one part when it is no AND; none without
// a WHERE clause).
func (s Select) AndParts() []Expr {
	var parts []Expr
	var flatten func(e Expr)
	flatten = func(e Expr) {
		if e.Op() == OpAnd {
			for _, c := range e.Args() {
				flatten(c)
			}
			return
		}
		parts = append(parts, e)
	}
	if w := s.Where(); w.Valid() {
		flatten(w)
	}
	return parts
}

// Counter writes the SQL that counts the rows of one SELECT's FROM matching some of its WHERE
// clause's parts.
type Counter struct {
	ctx      context.Context
	conn     *Conn
	policy   Policy // the query's: each statement is checked under it
	sel      astObj // the query's SELECT
	where    astObj // its WHERE clause, whose shape an AND of some parts copies
	template astObj // SELECT count(*), parsed
}

// NewCounter parses the template it builds on; ok is false when DuckDB cannot. p is the policy the
// query was accepted under.
func NewCounter(ctx context.Context, conn *Conn, s Select, p Policy) (*Counter, bool) {
	node, ok := parsedCountTemplate(ctx, conn)
	if !ok {
		return nil, false
	}
	return &Counter{ctx: ctx, conn: conn, policy: p, sel: s.o, where: s.Where().o, template: node}, true
}

// Count is the checked statement of SELECT count(*) over the query's FROM (and its CTEs) where all the
// parts hold; ok is false when DuckDB cannot write it or the guard refuses what it wrote.
func (c *Counter) Count(parts []Expr) (*Checked, bool) {
	text, ok := c.statement(c.sel["from_table"], c.and(parts), c.sel["cte_map"])
	if !ok {
		return nil, false
	}
	return c.check(text, 1)
}

// check is Check of a statement DuckDB wrote back from the query's parts.
func (c *Counter) check(text string, rowCap int) (*Checked, bool) {
	checked, err := Check(c.ctx, c.conn, text, c.policy, rowCap)
	return checked, err == nil
}

// Condition is one part as SQL, without the parentheses around it.
func (c *Counter) Condition(part Expr) (string, bool) {
	text, ok := c.statement(nil, part.o, nil)
	if !ok {
		return "", false
	}
	return conditionText(text)
}

// conditionText is the condition of "SELECT count_star() WHERE <condition>", as DuckDB writes a part
// back, without the parentheses around it. The text is only shown, never run.
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

// statement is the template with the given FROM, WHERE and CTEs, as SQL text.
func (c *Counter) statement(from, where, cte any) (string, bool) {
	doc, err := c.document(from, where, cte, nil)
	if err != nil {
		return "", false
	}
	out, ok := c.deserialize([]string{doc})
	if !ok {
		return "", false
	}
	return out[0], true
}

// and is the AND of parts, in the shape of the query's own WHERE.
func (c *Counter) and(parts []Expr) any {
	if len(parts) == 1 {
		return parts[0].o
	}
	node := astObj{"class": "CONJUNCTION", "type": "CONJUNCTION_AND", "alias": "", "query_location": c.where["query_location"]}
	if (Expr{c.where}).Op() == OpAnd {
		for k, v := range c.where {
			node[k] = v
		}
	}
	children := make([]any, len(parts))
	for i, p := range parts {
		children[i] = p.o
	}
	node["children"] = children
	return node
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
