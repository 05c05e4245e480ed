package hint

import "github.com/azabudai/ctool/internal/guard"

// NoMatch: a condition on a public column matches no row of its relation by itself. For a JSON column
// compared as text, the hint says what the JSON looks like and how to compare a field.
const NoMatch Kind = "no-match"

var noMatch = &analyzer{scope: eachCondition, run: func(p *pass, i int) []Hint {
	c := p.conds[i]
	if !p.unmatched(i) {
		return nil
	}
	text := clipText(c.text, 160) + " matches no row of " + c.col.relation
	if c.jsonText() {
		if example := jsonExample(p, c); example != "" {
			text += ": " + example
		}
	}
	return []Hint{{Kind: NoMatch, Condition: c.text, Text: text}}
}}

// jsonText reports whether the condition compares a JSON column's whole text: its values are
// documents, not words, so no value is close to it.
func (c condition) jsonText() bool { return c.col.json && c.op != "json" }

// jsonExample is the shortest JSON the column holds, and how to compare a field of it ("" when the
// column holds none).
func jsonExample(p *pass, c condition) string {
	col, rel := guard.MustIdent(c.col.name), guard.MustIdent(c.col.relation)
	q := guard.Format("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY length(%s) LIMIT 1", col, rel, col, col)
	example, err := p.cache.Row(p.ctx, p.conn, q, 1)
	if err != nil || !example[0].Valid {
		return ""
	}
	h := c.col.name + " holds JSON such as " + clipText(example[0].String, 100) + "; compare a field, e.g. json_extract_string(" + c.col.name + ", '$.<field>')"
	if c.col.typed != "" {
		h += ", or use the typed columns of " + c.col.typed
	}
	return h
}
