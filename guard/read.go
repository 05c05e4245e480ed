package guard

// Reading a parsed query for the hints of an empty result (parts.go builds counts on it). The reader
// uses only the node kinds and fields the walk's specs name (TestReaderReadsWhatTheWalkKnows holds it
// to them), so an AST that a DuckDB release changes fails the guard's tests instead of silencing the
// hints.

import (
	"sort"
	"strings"
)

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

// Table is a table named in a FROM clause.
type Table struct {
	Name, Alias, Schema, Catalog string
}

// Select is one SELECT of a parsed statement.
type Select struct{ o astObj }

// Where is the SELECT's WHERE clause (the zero Expr when it has none).
func (s Select) Where() Expr { return exprOf(s.o["where_clause"]) }

// Tables lists the tables its FROM clause names, through joins (never inside subqueries).
func (s Select) Tables() []Table {
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
			out = append(out, Table{Name: astStr(m, "table_name"), Alias: astStr(m, "alias"), Schema: astStr(m, "schema_name"), Catalog: astStr(m, "catalog_name")})
		}
	}
	visit(s.o["from_table"])
	return out
}

// CTEs names, lower-cased, the CTEs of this SELECT's own WITH clause.
func (s Select) CTEs() map[string]bool {
	ctes := map[string]bool{}
	addCTEs(s.o, ctes)
	return ctes
}

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
