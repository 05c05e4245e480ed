package guard

// The walk of one parsed statement. Each kind of node has a spec: the fields it may carry, in the
// order they are walked, and how each is walked. A field that is not in its node's spec and carries a
// value is refused, so a field added by a later DuckDB release cannot smuggle an expression past the
// walk; a node kind without a spec is refused too.

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
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
		"PARAMETER": {what: "parameter", check: refuseParameter},
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

// ---------------------------------------------------------------------------------------------
// The node checks.

func checkParamMap(_ *walker, o astObj, _ env) *Rejection {
	if !astEmpty(o["named_param_map"]) {
		return parameterRejection("")
	}
	return nil
}

// refuseParameter refuses $1, ? and $name anywhere: query(?) would bind them to its own argument,
// the agent's text.
func refuseParameter(_ *walker, o astObj, _ env) *Rejection {
	return parameterRejection(astStr(o, "identifier"))
}

func parameterRejection(name string) *Rejection {
	what := "query parameter"
	if name != "" {
		what += " $" + name
	}
	return &Rejection{
		Refused: what,
		Reason:  "Prepared-statement parameters ($1, ?, $name) have no values here.",
		Hint:    "Write the values into the query as literals, e.g. WHERE store_id = 'S001'.",
	}
}

// checkColumnRef refuses the SQL keywords (user, current_schema, ...) that DuckDB's binder turns into a
// function call when no column has that name.
func checkColumnRef(_ *walker, o astObj, _ env) *Rejection {
	names, ok := o["column_names"].([]any)
	if !ok || len(names) == 0 {
		return unknownPart("column reference without a name")
	}
	last, ok := names[len(names)-1].(string)
	if !ok {
		return unknownPart("column name")
	}
	if fn, ok := sqlValueFunctions[asciiLower(last)]; ok && !allowedFunctions[fn] {
		return &Rejection{
			Refused: strconv.Quote(last),
			Reason:  "DuckDB turns this keyword into a call to " + fn + "(), which reads session information.",
			Hint:    "Leave it out; no table here has a column of that name.",
		}
	}
	return nil
}

func checkFunction(w *walker, o astObj, _ env) *Rejection {
	name := astStr(o, "function_name")
	l := asciiLower(name)
	if astStr(o, "catalog") != "" {
		return qualifiedFunctionRejection(qualifiedName(o))
	}
	// DuckDB's grammar itself names some built-ins as main.<name> ([1,2] is main.list_value(1, 2));
	// those few keep their schema, any other qualified call is refused.
	if s := astStr(o, "schema"); s != "" && !(asciiLower(s) == "main" && parserQualifiedFunctions[l]) {
		return qualifiedFunctionRejection(qualifiedName(o))
	}
	if !w.functionAllowed(name) {
		return w.functionRejection(name)
	}
	// list_aggr(list, 'name') calls the aggregate named by a string; that name must be allowed too.
	if children, _ := o["children"].([]any); aggregateByName[l] && len(children) >= 2 {
		c, _ := children[1].(astObj)
		val, _ := c["value"].(astObj)
		agg, ok := val["value"].(string)
		if astStr(c, "class") != "CONSTANT" || !ok {
			return &Rejection{
				Refused: name + "() with a computed function name",
				Reason:  "The aggregate it calls must be named by a string literal.",
				Hint:    "Write e.g. " + name + "(l, 'sum').",
			}
		}
		if !allowedFunctions[asciiLower(agg)] {
			return w.functionRejection(agg)
		}
	}
	return nil
}

func checkWindow(w *walker, o astObj, _ env) *Rejection {
	name := astStr(o, "function_name")
	if astStr(o, "schema") != "" || astStr(o, "catalog") != "" {
		return qualifiedFunctionRejection(qualifiedName(o))
	}
	if !w.functionAllowed(name) {
		return w.functionRejection(name)
	}
	return nil
}

func checkOperator(_ *walker, o astObj, _ env) *Rejection {
	if !allowedOperators[astStr(o, "type")] {
		return unknownPart("operator " + astStr(o, "type"))
	}
	return nil
}

func checkComparison(_ *walker, o astObj, _ env) *Rejection {
	if !strings.HasPrefix(astStr(o, "type"), "COMPARE_") {
		return unknownPart("comparison " + astStr(o, "type"))
	}
	return nil
}

func checkTableFunction(w *walker, o astObj, _ env) *Rejection {
	if astStr(o, "class") != "FUNCTION" {
		return unknownPart("table function of class " + astStr(o, "class"))
	}
	name := astStr(o, "function_name")
	if astStr(o, "schema") != "" || astStr(o, "catalog") != "" {
		return &Rejection{
			Refused: "table function " + qualifiedName(o) + "()",
			Reason:  "Table functions are called without a catalog or schema prefix.",
			Hint:    tableFunctionHint,
		}
	}
	if !allowedTableFunctions[asciiLower(name)] {
		return &Rejection{
			Refused: "table function " + name + "()",
			Reason:  "It is not allowed in FROM: files, other databases and metadata cannot be read.",
			Hint:    tableFunctionHint + " " + w.relationsHint(),
		}
	}
	return nil
}

const tableFunctionHint = "In FROM you may use the tables, subqueries, VALUES and range(), generate_series(), unnest(), json_each(), json_tree()."

func checkBaseTable(w *walker, o astObj, e env) *Rejection {
	name := astStr(o, "table_name")
	if o["at_clause"] != nil {
		return &Rejection{
			Refused: "AT (...) time travel on " + strconv.Quote(name),
			Reason:  "ctool query reads only the current data.",
			Hint:    "Remove the AT (VERSION/TIMESTAMP => ...) clause.",
		}
	}
	if cat, sch := astStr(o, "catalog_name"), astStr(o, "schema_name"); cat != "" || sch != "" {
		full := name
		if sch != "" {
			full = sch + "." + full
		}
		if cat != "" {
			full = cat + "." + full
		}
		return &Rejection{
			Refused: "qualified table name " + strconv.Quote(full),
			Reason:  "Tables are named without a catalog or schema prefix.",
			Hint:    "Use the bare name, and quote names that contain dots or slashes (FROM 'events.csv'). " + w.relationsHint(),
		}
	}
	l := asciiLower(name)
	if e.ctes.has(l) || w.policy.Relations[l] {
		return nil
	}
	return &Rejection{
		Refused: "table " + strconv.Quote(name),
		Reason:  "It is not one of the tables ctool query may read, and no CTE of that name is visible there.",
		Hint:    w.relationsHint(),
	}
}

func checkValues(_ *walker, o astObj, _ env) *Rejection {
	if !astEmpty(o["expected_types"]) {
		return unknownPart("VALUES with declared types")
	}
	return nil
}

func checkPivotEnum(_ *walker, o astObj, _ env) *Rejection {
	if enum := astStr(o, "pivot_enum"); enum != "" {
		return &Rejection{
			Refused: "PIVOT ... IN " + enum,
			Reason:  "Pivoting on a named ENUM type reads the catalog.",
			Hint:    "List the values instead: IN ('a', 'b').",
		}
	}
	return nil
}

func refuseShow(w *walker, o astObj, _ env) *Rejection {
	kind := "SHOW"
	switch astStr(o, "show_type") {
	case "DESCRIBE":
		kind = "DESCRIBE"
	case "SUMMARY":
		kind = "SUMMARIZE"
	}
	return &Rejection{
		Refused: kind,
		Reason:  "Metadata statements (DESCRIBE, SUMMARIZE, SHOW) are not available. " + onlySelect,
		Hint:    "To see the columns, run SELECT * FROM <table> LIMIT 3. " + w.relationsHint(),
	}
}

// ---------------------------------------------------------------------------------------------
// CTEs.

// cteScope is the chain of CTE names visible at a point of the query.
type cteScope struct {
	names  map[string]bool
	parent *cteScope
}

func (s *cteScope) has(name string) bool {
	for ; s != nil; s = s.parent {
		if s.names[name] {
			return true
		}
	}
	return false
}

var (
	withSpec = &spec{what: "WITH clause", fields: plain("map")}
	cteEntry = &spec{what: "CTE", fields: plain("key", "value")}
	cteSpec  = &spec{what: "CTE", fields: plain("query", "aliases", "materialized", "key_targets")}
	// recursiveSpec's fields are walked by cteBody: they see different scopes.
	recursiveSpec = &spec{what: "recursive CTE", fields: plain("type", "modifiers", "cte_map", "cte_name", "union_all", "left", "right", "aliases", "key_targets")}
)

// ctes checks a WITH list and returns the scope its query body sees. A CTE sees the earlier CTEs of
// its WITH and, only as the recursive part of a RECURSIVE union, itself; DuckDB resolves any other
// use of its own name to the catalog, so the guard must too.
func (w *walker) ctes(v any, sc *cteScope) (*cteScope, *Rejection) {
	if v == nil {
		return sc, nil
	}
	cm, ok := v.(astObj)
	if !ok {
		return nil, unknownPart("WITH clause")
	}
	if rej := checkFields(cm, withSpec); rej != nil {
		return nil, rej
	}
	entries, ok := cm["map"].([]any)
	if !ok && cm["map"] != nil {
		return nil, unknownPart("WITH clause")
	}
	if len(entries) == 0 {
		return sc, nil
	}
	inner := &cteScope{names: map[string]bool{}, parent: sc}
	for _, x := range entries {
		entry, ok := x.(astObj)
		if !ok {
			return nil, unknownPart("CTE")
		}
		if rej := checkFields(entry, cteEntry); rej != nil {
			return nil, rej
		}
		name, ok := entry["key"].(string)
		if !ok || name == "" {
			return nil, unknownPart("CTE without a name")
		}
		cte, ok := entry["value"].(astObj)
		if !ok {
			return nil, unknownPart("CTE " + name)
		}
		if rej := checkFields(cte, cteSpec); rej != nil {
			return nil, rej
		}
		// Each CTE body sees only the CTEs before it: snapshot the names so far.
		before := env{ctes: &cteScope{names: maps.Clone(inner.names), parent: sc}}
		if rej := w.walk(field{name: "key_targets", kind: asExprs}, cte["key_targets"], before); rej != nil {
			return nil, rej
		}
		if rej := w.cteBody(asciiLower(name), cte["query"], before); rej != nil {
			return nil, rej
		}
		inner.names[asciiLower(name)] = true
	}
	return inner, nil
}

// cteBody checks the statement of one CTE; a RECURSIVE_CTE_NODE named like the CTE may read the CTE
// in its recursive (right) part only.
func (w *walker) cteBody(name string, v any, e env) *Rejection {
	st, ok := v.(astObj)
	if !ok {
		return unknownPart("CTE " + name)
	}
	rec, ok := st["node"].(astObj)
	if !ok || rec["type"] != "RECURSIVE_CTE_NODE" {
		return w.object(statementSpec, st, e)
	}
	if rej := checkParamMap(w, st, e); rej != nil {
		return rej
	}
	if rej := checkFields(st, statementSpec); rej != nil {
		return rej
	}
	if asciiLower(astStr(rec, "cte_name")) != name {
		return unknownPart("recursive CTE " + strconv.Quote(astStr(rec, "cte_name")) + " inside CTE " + strconv.Quote(name))
	}
	if rej := checkFields(rec, recursiveSpec); rej != nil {
		return rej
	}
	inner, rej := w.ctes(rec["cte_map"], e.ctes)
	if rej != nil {
		return rej
	}
	self := env{ctes: &cteScope{names: map[string]bool{name: true}, parent: inner}}
	for _, part := range []struct {
		fl field
		e  env
	}{
		{field{name: "left", kind: asNode}, env{ctes: inner}},
		{field{name: "right", kind: asNode}, self},
		{field{name: "key_targets", kind: asExprs}, self},
		{field{name: "modifiers", kind: asModifiers}, env{ctes: inner}},
	} {
		if rej := w.walk(part.fl, rec[part.fl.name], part.e); rej != nil {
			return rej
		}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Types.

// checkCastType allows DuckDB's built-in types, nested or not; a named type (CREATE TYPE) would be looked
// up in the catalog and is refused.
func checkCastType(v any) *Rejection {
	t, ok := v.(astObj)
	if !ok {
		return unknownPart("type")
	}
	id := astStr(t, "id")
	if rej := checkFields(t, typeSpec); rej != nil {
		return rej
	}
	if t["type_info"] == nil {
		if id == "" || id == "UNBOUND" || id == "USER" {
			return unknownPart("type " + id)
		}
		return nil
	}
	info, ok := t["type_info"].(astObj)
	if !ok {
		return unknownPart("type " + id)
	}
	kind := astStr(info, "type")
	s, ok := typeInfoSpecs[kind]
	if !ok {
		return unknownPart("type " + id)
	}
	if rej := checkFields(info, s); rej != nil {
		return rej
	}
	switch kind {
	case "LIST_TYPE_INFO", "ARRAY_TYPE_INFO":
		return checkCastType(info["child_type"])
	case "STRUCT_TYPE_INFO":
		kids, ok := info["child_types"].([]any)
		if !ok && info["child_types"] != nil {
			return unknownPart("STRUCT type")
		}
		for _, x := range kids {
			kv, ok := x.(astObj)
			if !ok {
				return unknownPart("STRUCT field")
			}
			if rej := checkCastType(kv["second"]); rej != nil {
				return rej
			}
		}
	case "UNBOUND_TYPE_INFO":
		name := astStr(info, "name")
		if astStr(info, "catalog") != "" || astStr(info, "schema") != "" || !allowedTypeNames[asciiLower(name)] {
			return &Rejection{
				Refused: "type " + strconv.Quote(name),
				Reason:  "Casts may use DuckDB's built-in types only, not named types from the catalog.",
				Hint:    "Use e.g. VARCHAR, INTEGER, DOUBLE, DATE, TIMESTAMP, BOOLEAN, JSON, VARCHAR[], STRUCT(...).",
			}
		}
		if asciiLower(name) != "enum" && !astEmpty(info["user_type_modifiers"]) {
			return unknownPart("type modifiers on " + name)
		}
	}
	return nil
}

var (
	typeSpec      = &spec{what: "type", fields: plain("id", "type_info")}
	typeInfoSpecs = map[string]*spec{
		"DECIMAL_TYPE_INFO": {what: "DECIMAL type", fields: plain("type", "alias", "width", "scale")},
		"LIST_TYPE_INFO":    {what: "LIST type", fields: plain("type", "alias", "child_type", "size")},
		"ARRAY_TYPE_INFO":   {what: "LIST type", fields: plain("type", "alias", "child_type", "size")},
		"STRUCT_TYPE_INFO":  {what: "STRUCT type", fields: plain("type", "alias", "child_types")},
		"GENERIC_TYPE_INFO": {what: "type", fields: plain("type", "alias")},
		"UNBOUND_TYPE_INFO": {what: "type", fields: plain("type", "alias", "name", "catalog", "schema", "user_type_modifiers")},
	}
)

// ---------------------------------------------------------------------------------------------
// Helpers.

func (w *walker) functionAllowed(name string) bool {
	l := asciiLower(name)
	return allowedFunctions[l] || w.policy.Macros[l]
}

func (w *walker) functionRejection(name string) *Rejection {
	hint := "Use ordinary string, number, date/time, list, struct, map, JSON, regexp, aggregate and window functions"
	if macros := sortedNames(w.policy.Macros, "()"); len(macros) > 0 {
		hint += ", and " + strings.Join(macros, ", ")
	}
	return &Rejection{
		Refused: "function " + name + "()",
		Reason:  "It is not on ctool query's list of allowed functions (functions that read settings, variables, the catalog, files or other databases, or have side effects are blocked).",
		Hint:    hint + ".",
	}
}

func (w *walker) relationsHint() string {
	names := sortedNames(w.policy.Relations, "")
	if len(names) == 0 {
		return "No tables are available."
	}
	return "Tables you may use: " + strings.Join(names, ", ") + "."
}

func sortedNames(set map[string]bool, suffix string) []string {
	var names []string
	for n, ok := range set {
		if ok {
			names = append(names, n+suffix)
		}
	}
	sort.Strings(names)
	return names
}

func qualifiedFunctionRejection(name string) *Rejection {
	return &Rejection{
		Refused: "qualified function call " + name + "()",
		Reason:  "Functions are called by their plain name, without a catalog or schema prefix.",
		Hint:    "Write lower(description) rather than description.lower() or main.lower(description).",
	}
}

func qualifiedName(fn astObj) string {
	var parts []string
	for _, k := range []string{"catalog", "schema", "function_name"} {
		if s := astStr(fn, k); s != "" || k == "function_name" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}

func unknownPart(what string) *Rejection {
	return &Rejection{
		Refused: what,
		Reason:  "ctool query does not recognise this part of the parsed query, so it refuses it.",
		Hint:    "Rewrite it with ordinary SELECT syntax. " + onlySelect,
	}
}

func astStr(o astObj, k string) string {
	s, _ := o[k].(string)
	return s
}

func astEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case bool:
		return !t
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	case astObj:
		return len(t) == 0
	}
	return false
}

// asciiLower folds ASCII only, as DuckDB's case-insensitive name lookup does; a wider fold could make a
// name look like a CTE or an allowed relation that DuckDB would resolve to something else.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
