package guard

// The node checks.

import (
	"strconv"
	"strings"
)

func checkParamMap(w *walker, o astObj, _ env) *Rejection {
	if astEmpty(o["named_param_map"]) {
		return nil
	}
	entries, _ := o["named_param_map"].([]any)
	for _, e := range entries {
		entry, _ := e.(astObj)
		key := astStr(entry, "key")
		if !w.parameterAllowed(key) || numberString(entry["value"]) != key {
			return parameterRejection("")
		}
	}
	return nil
}

// refuseParameter refuses $1, ? and $name anywhere: query(?) would bind them to its own argument,
// the agent's text. Only the statement that runs a shape holds its own numbered parameters.
func refuseParameter(w *walker, o astObj, _ env) *Rejection {
	if id := astStr(o, "identifier"); !w.parameterAllowed(id) {
		return parameterRejection(id)
	}
	return nil
}

// parameterAllowed reports whether $id is one of the walker's numbered parameters.
func (w *walker) parameterAllowed(id string) bool {
	n, err := strconv.Atoi(id)
	return err == nil && n >= 1 && n <= w.params && strconv.Itoa(n) == id
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
