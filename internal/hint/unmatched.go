package hint

import "github.com/azabudai/ctool/internal/querytree"

// Unmatched: an AND part that matches no row by itself, which no other hint explains (no condition the
// hints read, no range): a condition on a hidden column, a CTE's column, an expression.
const Unmatched Kind = "unmatched"

var unmatched = &analyzer{scope: eachPart, run: func(p *pass, k int) []Hint {
	part := p.parts[k]
	if p.named(k) {
		return nil
	}
	if n, ok := p.count(k); !ok || n > 0 || !readsColumn(part) {
		return nil // a constant (WHERE false) needs no explaining
	}
	if mayDateHint(part, p.scope) && p.rangeOf(k) != "" {
		return nil // ranges.go says more
	}
	text := p.partText(k)
	return []Hint{{Kind: Unmatched, Condition: text, Text: text + " matches no row by itself"}}
}}

// readsColumn reports whether an expression reads a column.
func readsColumn(e querytree.Expr) bool {
	return finds(e, func(x querytree.Expr) bool { return x.Op() == querytree.OpColumn })
}
