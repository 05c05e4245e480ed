package guard

// The walk of one parsed statement. Each kind of node has a spec: the fields it may carry, in the
// order they are walked, and how each is walked. A field that is not in its node's spec and carries a
// value is refused, so a field added by a later DuckDB release cannot smuggle an expression past the
// walk; a node kind without a spec is refused too.

import (
	"fmt"
	"sort"
	"strings"
)

type astObj = map[string]any

// kind says how the value of a field is walked.
type kind int

const (
	asIs            kind = iota // a plain value (a name, a flag, a literal): allowed as it is
	asExpr                      // an expression or null
	asExprs                     // a list of expressions
	asRows                      // VALUES: a list of rows of expressions
	asStmt                      // a statement {node, named_param_map}
	asNode                      // a query node (SELECT, set operation)
	asFrom                      // a FROM item or null
	asModifiers                 // a list of result modifiers (LIMIT, ORDER BY, DISTINCT ON)
	asOrderBy                   // an ORDER_MODIFIER or null
	asOrders                    // a list of ORDER BY items
	asObjects                   // a list of objects of the field's spec
	asWith                      // a WITH clause: the fields after it see its CTEs
	asType                      // the type of a CAST
	asTableFunction             // the function of a FROM item
)

type field struct {
	name string
	kind kind
	spec *spec // objects only
}

type spec struct {
	what   string // names the node in messages
	fields []field
	// check holds the node's own rules (allow-lists, names); it runs before the fields are walked.
	check func(w *walker, o astObj, e env) *Rejection
}

// env is what one point of the walk knows: the CTE names visible there.
type env struct {
	ctes *cteScope
}

// walker walks one statement.
type walker struct {
	policy Policy
	// params is how many positional parameters ($1 .. $params) the statement may hold: none in an
	// agent's text, a shape's literals in the statement that runs a shape (CheckShape).
	params int
}

// walkStatement checks the top-level statement of a query.
func walkStatement(stmt astObj, p Policy) *Rejection {
	w := &walker{policy: p}
	return w.object(statementSpec, stmt, env{})
}

// plain lists fields that are allowed as they are.
func plain(names ...string) []field { return walked(asIs, names...) }

// walked lists fields walked as k.
func walked(k kind, names ...string) []field {
	out := make([]field, len(names))
	for i, n := range names {
		out[i] = field{name: n, kind: k}
	}
	return out
}

func list(name string, s *spec) []field { return []field{{name: name, kind: asObjects, spec: s}} }

func fields(groups ...[]field) []field {
	var out []field
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

var (
	exprBase = plain("class", "type", "alias")
	fromBase = plain("type", "alias", "sample")

	// statementSpec is the top level, every subquery and every CTE body.
	statementSpec = &spec{what: "statement", check: checkParamMap, fields: fields(plain("named_param_map"), walked(asNode, "node"))}

	exprSpecs = map[string]*spec{ // by class
		"CONSTANT":             {what: "constant", fields: fields(exprBase, plain("value"))},
		"COLUMN_REF":           {what: "column", check: checkColumnRef, fields: fields(exprBase, plain("column_names"))},
		"POSITIONAL_REFERENCE": {what: "positional reference", fields: fields(exprBase, plain("index"))},
		"FUNCTION": {what: "function call", check: checkFunction, fields: fields(exprBase, plain("function_name", "schema", "catalog", "distinct", "is_operator"),
			walked(asExprs, "children"), walked(asExpr, "filter"), walked(asOrderBy, "order_bys"))},
		"WINDOW": {what: "window function", check: checkWindow, fields: fields(exprBase,
			plain("function_name", "schema", "catalog", "start", "end", "ignore_nulls", "exclude_clause", "distinct"),
			walked(asExprs, "children", "partitions"), walked(asOrders, "orders", "arg_orders"),
			walked(asExpr, "start_expr", "end_expr", "offset_expr", "default_expr", "filter_expr"))},
		"OPERATOR":    {what: "operator", check: checkOperator, fields: fields(exprBase, walked(asExprs, "children"))},
		"COMPARISON":  {what: "comparison", check: checkComparison, fields: fields(exprBase, walked(asExpr, "left", "right"))},
		"CONJUNCTION": {what: "AND/OR", fields: fields(exprBase, walked(asExprs, "children"))},
		"BETWEEN":     {what: "BETWEEN", fields: fields(exprBase, walked(asExpr, "input", "lower", "upper"))},
		"CASE": {what: "CASE", fields: fields(exprBase,
			list("case_checks", &spec{what: "WHEN", fields: walked(asExpr, "when_expr", "then_expr")}), walked(asExpr, "else_expr"))},
		"CAST":     {what: "CAST", fields: fields(exprBase, plain("try_cast"), walked(asType, "cast_type"), walked(asExpr, "child"))},
		"COLLATE":  {what: "COLLATE", fields: fields(exprBase, plain("collation"), walked(asExpr, "child"))},
		"LAMBDA":   {what: "lambda", fields: fields(exprBase, walked(asExpr, "lhs", "expr"))},
		"SUBQUERY": {what: "subquery", fields: fields(exprBase, plain("subquery_type", "comparison_type"), walked(asExpr, "child"), walked(asStmt, "subquery"))},
		"STAR": {what: "*", fields: fields(exprBase, plain("relation_name", "exclude_list", "columns", "qualified_exclude_list", "rename_list"),
			list("replace_list", &spec{what: "* REPLACE", fields: fields(plain("key"), walked(asExpr, "value"))}), walked(asExpr, "expr"))},
		"PARAMETER": {what: "parameter", check: refuseParameter, fields: fields(exprBase, plain("identifier"))},
	}

	// Query nodes by type. RECURSIVE_CTE_NODE is not here: it is allowed only as a CTE's body (cteBody).
	nodeSpecs = map[string]*spec{
		"SELECT_NODE": {what: "SELECT", fields: fields(plain("type", "group_sets", "aggregate_handling", "sample"),
			// FROM first: it is what the rest of the SELECT reads.
			walked(asWith, "cte_map"), walked(asFrom, "from_table"), walked(asExprs, "select_list", "group_expressions"),
			walked(asExpr, "where_clause", "having", "qualify"), walked(asModifiers, "modifiers"))},
		"SET_OPERATION_NODE": {what: "set operation", fields: fields(plain("type", "setop_type", "setop_all"),
			walked(asWith, "cte_map"), walked(asNode, "left", "right"), walked(asModifiers, "modifiers"))},
	}

	fromSpecs = map[string]*spec{ // by type
		"EMPTY":      {what: "FROM", fields: fromBase},
		"BASE_TABLE": {what: "table", check: checkBaseTable, fields: fields(fromBase, plain("schema_name", "table_name", "column_name_alias", "catalog_name", "at_clause"))},
		"JOIN": {what: "JOIN", fields: fields(fromBase, plain("join_type", "ref_type", "using_columns"),
			walked(asFrom, "left", "right"), walked(asExpr, "condition"))},
		"SUBQUERY":        {what: "subquery", fields: fields(fromBase, plain("column_name_alias"), walked(asStmt, "subquery"))},
		"TABLE_FUNCTION":  {what: "table function", fields: fields(fromBase, plain("column_name_alias", "with_ordinality"), walked(asTableFunction, "function"))},
		"EXPRESSION_LIST": {what: "VALUES", check: checkValues, fields: fields(fromBase, plain("expected_names", "expected_types"), walked(asRows, "values"))},
		"PIVOT": {what: "PIVOT", fields: fields(fromBase, plain("unpivot_names", "groups", "column_name_alias", "include_nulls"),
			walked(asFrom, "source"), walked(asExprs, "aggregates"), list("pivots", &spec{what: "PIVOT column", check: checkPivotEnum,
				fields: fields(plain("unpivot_names", "pivot_enum"), walked(asExprs, "pivot_expressions"),
					list("entries", &spec{what: "PIVOT IN entry", fields: fields(plain("values", "alias"), walked(asExpr, "star_expr"))}))}))},
		"SHOW_REF": {what: "SHOW", check: refuseShow},
	}

	limitSpec     = &spec{what: "LIMIT", fields: fields(plain("type"), walked(asExpr, "limit", "offset"))}
	orderModifier = &spec{what: "ORDER BY", fields: fields(plain("type"), walked(asOrders, "orders"))}
	modifierSpecs = map[string]*spec{ // by type
		"LIMIT_MODIFIER":         limitSpec,
		"LIMIT_PERCENT_MODIFIER": limitSpec,
		"ORDER_MODIFIER":         orderModifier,
		"DISTINCT_MODIFIER":      {what: "DISTINCT ON", fields: fields(plain("type"), walked(asExprs, "distinct_on_targets"))},
	}

	// orderItem is one item of ORDER BY, of a window's ORDER BY and of an aggregate's ORDER BY.
	orderItem = &spec{what: "ORDER BY item", fields: fields(plain("type", "null_order"), walked(asExpr, "expression"))}

	tableFunctionSpec = &spec{what: "table function", check: checkTableFunction, fields: fields(exprBase,
		plain("function_name", "schema", "catalog", "is_operator"), walked(asExprs, "children"), walked(asOrderBy, "order_bys"))}
)

// object checks one node against its spec and walks its fields in order.
func (w *walker) object(s *spec, o astObj, e env) *Rejection {
	if s.check != nil {
		if rej := s.check(w, o, e); rej != nil {
			return rej
		}
	}
	if rej := checkFields(o, s); rej != nil {
		return rej
	}
	for _, fl := range s.fields {
		if fl.kind == asWith {
			var rej *Rejection
			if e.ctes, rej = w.ctes(o[fl.name], e.ctes); rej != nil {
				return rej
			}
			continue
		}
		if rej := w.walk(fl, o[fl.name], e); rej != nil {
			return rej
		}
	}
	return nil
}

// walk walks the value of one field.
func (w *walker) walk(fl field, v any, e env) *Rejection {
	inner := e
	switch fl.kind {
	case asIs:
		return nil
	case asExpr:
		if v == nil {
			return nil
		}
		return w.dispatch(exprSpecs, "class", "expression", v, inner)
	case asExprs, asRows, asOrders, asObjects, asModifiers:
		if v == nil {
			return nil
		}
		list, ok := v.([]any)
		if !ok {
			return unknownPart(fl.name)
		}
		for _, x := range list {
			var rej *Rejection
			switch fl.kind {
			case asExprs:
				rej = w.walk(field{name: fl.name, kind: asExpr}, x, inner)
			case asRows:
				rej = w.walk(field{name: fl.name, kind: asExprs}, x, inner)
			case asModifiers:
				rej = w.dispatch(modifierSpecs, "type", "result modifier", x, inner)
			default:
				s := fl.spec
				if fl.kind == asOrders {
					s = orderItem
				}
				rej = w.objectOf(s, x, inner)
			}
			if rej != nil {
				return rej
			}
		}
		return nil
	case asStmt:
		return w.objectOf(statementSpec, v, inner)
	case asNode:
		return w.dispatch(nodeSpecs, "type", "query node", v, e)
	case asFrom:
		if v == nil {
			return nil
		}
		return w.dispatch(fromSpecs, "type", "FROM item", v, inner)
	case asOrderBy:
		if v == nil {
			return nil
		}
		if o, ok := v.(astObj); ok && o["type"] != "ORDER_MODIFIER" {
			return unknownPart("ORDER BY of type " + astStr(o, "type"))
		}
		return w.objectOf(orderModifier, v, inner)
	case asType:
		return checkCastType(v)
	case asTableFunction:
		return w.objectOf(tableFunctionSpec, v, inner)
	}
	return unknownPart(fl.name)
}

func (w *walker) objectOf(s *spec, v any, e env) *Rejection {
	o, ok := v.(astObj)
	if !ok {
		return unknownPart(s.what)
	}
	return w.object(s, o, e)
}

// checkFields refuses any key of o outside the spec that carries a value.
func checkFields(o astObj, s *spec) *Rejection {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same message for the same query
next:
	for _, k := range keys {
		if k == "query_location" || astEmpty(o[k]) {
			continue
		}
		for _, fl := range s.fields {
			if fl.name == k {
				continue next
			}
		}
		return unknownPart(fmt.Sprintf("%s field %q", s.what, k))
	}
	return nil
}

// dispatch walks a node whose kind is named by its key field in table.
func (w *walker) dispatch(table map[string]*spec, key, what string, v any, e env) *Rejection {
	o, ok := v.(astObj)
	if !ok {
		return unknownPart(what)
	}
	k := astStr(o, key)
	s, ok := table[k]
	if !ok {
		return unknownPart(strings.TrimSpace(what + " " + k))
	}
	return w.object(s, o, e)
}
