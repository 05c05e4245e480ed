// Package querytree reads and rewrites the tree of a query the guard accepted, for the hints
// (internal/hint): the tree is the guard's own parse (guard.Checked.Statement, guard.Parse), read through
// values that cannot change it; read_derive.go writes statements from its pieces, and it gives text
// only: that text runs once guard.Check has accepted it, as the Checked that Check makes. The reader
// uses only the node kinds and fields the guard's walk checks (TestReaderReadsWhatTheWalkKnows holds it
// to guard.WalkedFields), so an AST that a DuckDB release changes fails these tests instead of
// silencing the hints.
package querytree

import (
	"reflect"
	"sort"
	"strings"
)

// astObj is a node of DuckDB's JSON parse.
type astObj = map[string]any

// Op is what an expression is, as far as the hints tell expressions apart.
type Op int

const (
	OpOther    Op = iota
	OpAnd         // AND of Args
	OpOr          // OR of Args
	OpEqual       // Args[0] = Args[1]
	OpIn          // Args[0] IN (Args[1:])
	OpFunction    // a call of Function() on Args; LIKE is the function ~~, ILIKE ~~*, GLOB ~~~
	OpColumn      // a column reference: ColumnNames
	OpConstant    // a constant: Text
)

// The node kinds the reader knows, by their "type" (the walk dispatches on "class").
var readOps = map[string]Op{
	"CONJUNCTION_AND": OpAnd,
	"CONJUNCTION_OR":  OpOr,
	"COMPARE_EQUAL":   OpEqual,
	"COMPARE_IN":      OpIn,
	"FUNCTION":        OpFunction,
	"COLUMN_REF":      OpColumn,
	"VALUE_CONSTANT":  OpConstant,
}

// Expr is one expression of a parsed query; the zero Expr is none.
type Expr struct{ o astObj }

// exprOf reads v as an expression; anything but an AST object gives the zero Expr.
func exprOf(v any) Expr {
	o, _ := v.(astObj)
	return Expr{o}
}

// Valid reports whether there is an expression.
func (e Expr) Valid() bool { return e.o != nil }

// Op says what the expression is.
func (e Expr) Op() Op {
	if e.o == nil {
		return OpOther
	}
	return readOps[astStr(e.o, "type")]
}

// Args are the operands: the children of AND, OR, IN and a call, the two sides of =.
func (e Expr) Args() []Expr {
	if e.Op() == OpEqual {
		return []Expr{exprOf(e.o["left"]), exprOf(e.o["right"])}
	}
	children, _ := e.o["children"].([]any)
	out := make([]Expr, len(children))
	for i, c := range children {
		out[i] = exprOf(c)
	}
	return out
}

// Function is the name a call was written with ("" for anything but a call).
func (e Expr) Function() string {
	if e.Op() != OpFunction {
		return ""
	}
	return astStr(e.o, "function_name")
}

// ColumnNames are a column reference's parts: [column] or [qualifier, column].
func (e Expr) ColumnNames() []string {
	if e.Op() != OpColumn {
		return nil
	}
	parts, _ := e.o["column_names"].([]any)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		s, _ := p.(string)
		out = append(out, s)
	}
	return out
}

// Text is a VARCHAR constant's text; ok is false for any other expression, and for NULL.
func (e Expr) Text() (string, bool) {
	if e.Op() != OpConstant {
		return "", false
	}
	val, _ := e.o["value"].(astObj)
	typ, _ := val["type"].(astObj)
	s, ok := val["value"].(string)
	if !ok || typ["id"] != "VARCHAR" || val["is_null"] == true {
		return "", false
	}
	return s, true
}

// Walk calls f on e and every expression under it, depth first, fields in name order (so a
// BETWEEN's lower bound comes before its upper), until f returns false.
func (e Expr) Walk(f func(Expr) bool) {
	var visit func(v any) bool
	visit = func(v any) bool {
		switch x := v.(type) {
		case astObj:
			if !f(Expr{x}) {
				return false
			}
			for _, k := range sortedKeys(x) {
				if !visit(x[k]) {
					return false
				}
			}
		case []any:
			for _, c := range x {
				if !visit(c) {
					return false
				}
			}
		}
		return true
	}
	if e.o != nil {
		visit(e.o)
	}
}

// Contains reports whether f is e or one of the expressions under it (the same node of the same tree,
// not an equal one).
func (e Expr) Contains(f Expr) bool {
	if f.o == nil {
		return false
	}
	target := reflect.ValueOf(f.o).UnsafePointer()
	found := false
	e.Walk(func(x Expr) bool {
		found = reflect.ValueOf(x.o).UnsafePointer() == target
		return !found
	})
	return found
}

// Table is the table a node names when it is one in a FROM clause (Walk visits those too).
func (e Expr) Table() (Table, bool) {
	if e.o == nil || e.o["type"] != "BASE_TABLE" {
		return Table{}, false
	}
	return tableOf(e.o), true
}

// Subquery is the SELECT of a subquery expression (EXISTS, IN, a scalar subquery); ok is false for
// anything else, and for a subquery that is a set operation.
func (e Expr) Subquery() (Select, bool) {
	if e.o == nil || astStr(e.o, "class") != "SUBQUERY" {
		return Select{}, false
	}
	stmt, _ := e.o["subquery"].(astObj)
	return TopSelect(stmt)
}

// Table is a table named in a FROM clause.
type Table struct {
	Name, Alias, Schema, Catalog string
}

// Qualifier is how the query's columns name the table: its alias, or its name.
func (t Table) Qualifier() string {
	if t.Alias != "" {
		return t.Alias
	}
	return t.Name
}

func tableOf(m astObj) Table {
	return Table{Name: astStr(m, "table_name"), Alias: astStr(m, "alias"), Schema: astStr(m, "schema_name"), Catalog: astStr(m, "catalog_name")}
}

// Select is one SELECT of a parsed statement.
type Select struct{ o astObj }

// Where is the SELECT's WHERE clause (the zero Expr when it has none).
func (s Select) Where() Expr { return exprOf(s.o["where_clause"]) }

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

// List is the SELECT's select list.
func (s Select) List() []Expr {
	list, _ := s.o["select_list"].([]any)
	out := make([]Expr, len(list))
	for i, e := range list {
		out[i] = exprOf(e)
	}
	return out
}

// WithClause is the SELECT's own WITH clause, to walk (the zero Expr when the node has none).
func (s Select) WithClause() Expr { return exprOf(s.o["cte_map"]) }

// From is the SELECT's FROM clause.
func (s Select) From() From {
	o, _ := s.o["from_table"].(astObj)
	return From{o}
}

// Tables lists the tables its FROM clause names, through joins (never inside subqueries).
func (s Select) Tables() []Table { return s.From().Tables() }

// From is the FROM clause of a SELECT; the zero From is none.
type From struct{ o astObj }

// Tables lists the tables the FROM clause names, through joins (never inside subqueries).
func (f From) Tables() []Table {
	var out []Table
	var visit func(v any)
	visit = func(v any) {
		m, ok := v.(astObj)
		if !ok {
			return
		}
		switch m["type"] {
		case "JOIN":
			visit(m["left"])
			visit(m["right"])
		case "BASE_TABLE":
			out = append(out, tableOf(m))
		}
	}
	visit(f.o)
	return out
}

// Table is the FROM clause's table when it is one table and nothing else.
func (f From) Table() (Table, bool) { return Expr(f).Table() }

// Walk calls f on every node of the FROM clause, tables, join conditions and subqueries included, as
// Expr.Walk does.
func (f From) Walk(fn func(Expr) bool) { Expr(f).Walk(fn) }

// CTEs names, lower-cased, the CTEs of this SELECT's own WITH clause.
func (s Select) CTEs() map[string]bool {
	ctes := map[string]bool{}
	addCTEs(s.o, ctes)
	return ctes
}

// Whole is the whole statement as one node, to Walk.
func Whole(stmt map[string]any) Expr { return Expr{stmt} }

// TopSelect is the statement's query when it is a plain SELECT (not a set operation).
func TopSelect(stmt map[string]any) (Select, bool) {
	node, _ := stmt["node"].(astObj)
	if node == nil || node["type"] != "SELECT_NODE" {
		return Select{}, false
	}
	return Select{node}, true
}

// Selects lists every SELECT of a parsed statement, subqueries, CTE bodies and set operations
// included, in the order of their fields' names, with the names of every CTE it defines, lower-cased: they shadow relations of the same name.
func Selects(stmt map[string]any) ([]Select, map[string]bool) {
	ctes := map[string]bool{}
	var out []Select
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case astObj:
			addCTEs(x, ctes)
			if x["type"] == "SELECT_NODE" {
				out = append(out, Select{x})
			}
			for _, k := range sortedKeys(x) {
				visit(x[k])
			}
		case []any:
			for _, c := range x {
				visit(c)
			}
		}
	}
	visit(stmt)
	return out, ctes
}

func addCTEs(node astObj, ctes map[string]bool) {
	m, _ := node["cte_map"].(astObj)
	entries, _ := m["map"].([]any)
	for _, e := range entries {
		if em, ok := e.(astObj); ok {
			if k, ok := em["key"].(string); ok {
				ctes[strings.ToLower(k)] = true
			}
		}
	}
}

func sortedKeys(o astObj) []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func astStr(o astObj, k string) string {
	s, _ := o[k].(string)
	return s
}
