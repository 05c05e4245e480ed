package hint

import (
	"strings"

	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/schema"
)

// The conditions of a query that the hints look at one by one (nomatch.go and the analyzers after it),
// read through the reader of the parsed query (internal/querytree).

// maxConditions is the most conditions of one query that are looked at.
const maxConditions = 8

// condition is one comparison of a public column with constants, as the query wrote it.
type condition struct {
	node     querytree.Expr // where the query wrote it
	ref      querytree.Expr // what its column's values are read from: the column, outside any wrapper, or the JSON field
	col      publicColumn
	op       string // =, IN, LIKE, ILIKE, GLOB, list_contains, list_has_any, json
	literals []string
	path     string // json: the JSON path
	text     string // the condition in SQL, for the hint
}

// where is the SQL that tests the condition alone; its arguments are the literals.
func (c condition) where() (guard.SQL, []any) {
	col := c.col.expr()
	args := make([]any, 0, len(c.literals)+1)
	marks := make([]guard.SQL, len(c.literals))
	for i, l := range c.literals {
		marks[i] = guard.Const("?")
		args = append(args, l)
	}
	switch c.op {
	case "IN":
		return guard.Format("%s IN (%s)", col, guard.Join(marks, ", ")), args
	case "LIKE":
		return guard.Format("%s LIKE ?", col), args
	case "ILIKE":
		return guard.Format("%s ILIKE ?", col), args
	case "GLOB":
		return guard.Format("%s GLOB ?", col), args
	case "list_contains":
		return guard.Format("list_contains(%s, ?)", col), args
	case "contains":
		return guard.Format("contains(%s, ?)", col), args
	case "list_has_any":
		return guard.Format("list_has_any(%s, [%s])", col, guard.Join(marks, ", ")), args
	case "json":
		return guard.Format("json_extract_string(%s, ?) = ?", col), append([]any{c.path}, args...)
	}
	return guard.Format("%s = ?", col), args
}

// collectConditions finds the conditions of every SELECT in the statement, each resolved to a public
// relation's column, the first maxConditions of them, and how many more there are. CTE names shadow
// relations, so a table named like a CTE is never read.
func collectConditions(stmt map[string]any) (conds []condition, more int) {
	selects, ctes := querytree.Selects(stmt)
	seen := map[string]bool{}
	for _, s := range selects {
		for _, c := range conditionsOf(s.Where(), scopeOf(s, ctes)) {
			if seen[c.text] {
				continue
			}
			seen[c.text] = true
			if len(conds) < maxConditions {
				conds = append(conds, c)
			} else {
				more++
			}
		}
	}
	return conds, more
}

var likeOps = map[string]string{"~~": "LIKE", "~~*": "ILIKE", "~~~": "GLOB", "like": "LIKE", "ilike": "ILIKE", "glob": "GLOB"}

// conditionsOf walks AND and OR and returns the conditions it recognises; anything else is skipped.
func conditionsOf(e querytree.Expr, scope []scopeEntry) []condition {
	if !e.Valid() || len(scope) == 0 {
		return nil
	}
	out := conditionOf(e, scope)
	for i := range out {
		if !out[i].node.Valid() {
			out[i].node = e
		}
	}
	return out
}

// conditionOf is conditionsOf of one expression.
func conditionOf(e querytree.Expr, scope []scopeEntry) []condition {
	args := e.Args()
	switch e.Op() {
	case querytree.OpAnd, querytree.OpOr:
		var out []condition
		for _, c := range args {
			out = append(out, conditionsOf(c, scope)...)
		}
		return out
	case querytree.OpEqual:
		l, r := args[0], args[1]
		if _, ok := l.Text(); ok {
			l, r = r, l
		}
		lit, ok := r.Text()
		if !ok {
			return nil
		}
		if col, ok := resolve(l, scope); ok && !col.list {
			return []condition{{ref: unwrapped(l), col: col, op: "=", literals: []string{lit}, text: col.shown() + " = " + schema.QuoteString(lit)}}
		}
		if c, ok := jsonField(l, scope); ok {
			c.literals = []string{lit}
			c.text += " = " + schema.QuoteString(lit)
			return []condition{c}
		}
	case querytree.OpIn:
		if len(args) < 2 {
			return nil
		}
		col, ok := resolve(args[0], scope)
		if !ok || col.list {
			return nil
		}
		lits, ok := texts(args[1:])
		if !ok {
			return nil
		}
		return []condition{{ref: unwrapped(args[0]), col: col, op: "IN", literals: lits, text: col.shown() + " IN (" + quoteList(lits) + ")"}}
	case querytree.OpFunction:
		return functionCondition(e, scope)
	}
	return nil
}

// functionCondition recognises LIKE and its kin, contains, and the list functions on a column.
func functionCondition(e querytree.Expr, scope []scopeEntry) []condition {
	fn := strings.ToLower(e.Function())
	args := e.Args()
	if len(args) != 2 {
		return nil
	}
	col, ok := resolve(args[0], scope)
	if !ok {
		return nil
	}
	ref := unwrapped(args[0])
	if op, ok := likeOps[fn]; ok && !col.list {
		if lit, ok := args[1].Text(); ok {
			return []condition{{ref: ref, col: col, op: op, literals: []string{lit}, text: col.shown() + " " + op + " " + schema.QuoteString(lit)}}
		}
	}
	switch fn {
	case "contains":
		if lit, ok := args[1].Text(); ok && !col.list {
			return []condition{{ref: ref, col: col, op: "contains", literals: []string{lit}, text: "contains(" + col.shown() + ", " + schema.QuoteString(lit) + ")"}}
		}
	case "list_contains", "list_has", "array_contains", "array_has":
		if lit, ok := args[1].Text(); ok && col.list {
			return []condition{{ref: ref, col: col, op: "list_contains", literals: []string{lit}, text: fn + "(" + col.name + ", " + schema.QuoteString(lit) + ")"}}
		}
	case "list_has_any", "array_has_any":
		if args[1].Function() != "list_value" || !col.list {
			return nil
		}
		lits, ok := texts(args[1].Args())
		if !ok {
			return nil
		}
		return []condition{{ref: ref, col: col, op: "list_has_any", literals: lits, text: fn + "(" + col.name + ", [" + quoteList(lits) + "])"}}
	}
	return nil
}

// texts are the VARCHAR constants' texts; ok is false when any expression is something else.
func texts(es []querytree.Expr) ([]string, bool) {
	var out []string
	for _, e := range es {
		s, ok := e.Text()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// jsonField recognises json_extract_string(col, '$.path'), json_extract(col, path), col->>path.
func jsonField(e querytree.Expr, scope []scopeEntry) (condition, bool) {
	fn := e.Function()
	args := e.Args()
	if e.Op() != querytree.OpFunction || len(args) != 2 {
		return condition{}, false
	}
	switch strings.ToLower(fn) {
	case "json_extract_string", "json_extract", "->>", "->", "json_value":
	default:
		return condition{}, false
	}
	col, ok := resolve(args[0], scope)
	if !ok || !col.json || col.wrap != "" {
		return condition{}, false
	}
	path, ok := args[1].Text()
	if !ok {
		return condition{}, false
	}
	c := condition{col: col, op: "json", path: path, text: fn + "(" + col.name + ", " + schema.QuoteString(path) + ")"}
	if f := strings.ToLower(fn); f == "json_extract_string" || f == "->>" {
		c.ref = e // text, as the column's values are read; the others give JSON
	}
	return c, true
}

// unwrapped is a column reference without the lower(), upper() or trim() a condition put around it.
func unwrapped(e querytree.Expr) querytree.Expr {
	if wrappers[strings.ToLower(e.Function())] && len(e.Args()) == 1 {
		return e.Args()[0]
	}
	return e
}
