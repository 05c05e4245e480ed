package query

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzGuard: Check never panics, and any text it returns parses as exactly the row-limit wrapper
// around one SELECT that names only relations, CTEs and functions the policy allows.
func FuzzGuard(f *testing.F) {
	for _, tc := range hostileCorpus {
		f.Add(tc.sql)
	}
	for _, q := range legitCorpus {
		f.Add(q)
	}
	conn := openGuardStandIn(f)
	p := guardTestPolicy()
	const rowCap = 10
	f.Fuzz(func(t *testing.T, q string) {
		ctx := context.Background()
		final, err := Check(ctx, conn, q, p, rowCap)
		if err != nil {
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Check(%q) failed outside the guard: %v", q, err)
			}
			if final != "" || rej.Error() == "" {
				t.Fatalf("Check(%q) = %q with rejection %q", q, final, rej.Error())
			}
			return
		}
		res, err := serializeText(ctx, conn, final)
		if err != nil {
			t.Fatal(err)
		}
		if res.Error || len(res.Statements) != 1 {
			t.Fatalf("Check(%q) returned %q, which does not parse as one statement: %s", q, final, res.ErrorMessage)
		}
		stmt, err := decodeAST(res.Statements[0])
		if err != nil {
			t.Fatal(err)
		}
		if why := notWrapper(stmt, rowCap); why != "" {
			t.Fatalf("Check(%q) returned %q: %s", q, final, why)
		}
		if rej := (&astGuard{policy: p}).statement(stmt, nil); rej != nil {
			t.Fatalf("Check(%q) returned %q, which the guard refuses: %v", q, final, rej)
		}
		if why := namesOutsidePolicy(stmt, p); why != "" {
			t.Fatalf("Check(%q) returned %q: %s", q, final, why)
		}
	})
}

// notWrapper says why stmt is not SELECT * FROM (<one query>) AS ctool_q LIMIT rowCap+1, or "".
func notWrapper(stmt any, rowCap int) string {
	s, _ := stmt.(astObj)
	if !astEmpty(s["named_param_map"]) {
		return "parameters"
	}
	n, _ := s["node"].(astObj)
	if n["type"] != "SELECT_NODE" {
		return "outer node is not a SELECT"
	}
	for _, k := range []string{"where_clause", "group_expressions", "group_sets", "having", "sample", "qualify"} {
		if !astEmpty(n[k]) {
			return "outer SELECT has " + k
		}
	}
	if cm, _ := n["cte_map"].(astObj); !astEmpty(cm["map"]) {
		return "outer SELECT has a WITH"
	}
	mods, _ := n["modifiers"].([]any)
	if len(mods) != 1 {
		return "outer SELECT does not have exactly one modifier"
	}
	m, _ := mods[0].(astObj)
	lim, _ := m["limit"].(astObj)
	val, _ := lim["value"].(astObj)
	if num, _ := val["value"].(json.Number); m["type"] != "LIMIT_MODIFIER" || m["offset"] != nil || lim["class"] != "CONSTANT" || num.String() != jsonInt(rowCap+1) {
		return "outer modifier is not LIMIT rowCap+1"
	}
	list, _ := n["select_list"].([]any)
	if len(list) != 1 {
		return "outer select list is not *"
	}
	star, _ := list[0].(astObj)
	if star["class"] != "STAR" || star["columns"] != false || star["expr"] != nil || !astEmpty(star["relation_name"]) ||
		!astEmpty(star["exclude_list"]) || !astEmpty(star["replace_list"]) || !astEmpty(star["rename_list"]) || !astEmpty(star["qualified_exclude_list"]) {
		return "outer select list is not a plain *"
	}
	from, _ := n["from_table"].(astObj)
	if from["type"] != "SUBQUERY" || from["alias"] != "ctool_q" || from["sample"] != nil || !astEmpty(from["column_name_alias"]) {
		return "outer FROM is not (subquery) AS ctool_q"
	}
	return ""
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// namesOutsidePolicy walks the whole tree without the guard's scoping: every table read must be a
// policy relation or a CTE defined somewhere, every function allowed, every table function allowed.
func namesOutsidePolicy(stmt any, p Policy) string {
	ctes := map[string]bool{}
	var collect func(v any)
	collect = func(v any) {
		switch t := v.(type) {
		case astObj:
			if cm, ok := t["cte_map"].(astObj); ok {
				entries, _ := cm["map"].([]any)
				for _, e := range entries {
					if kv, ok := e.(astObj); ok {
						name, _ := kv["key"].(string)
						ctes[asciiLower(name)] = true
					}
				}
			}
			for _, x := range t {
				collect(x)
			}
		case []any:
			for _, x := range t {
				collect(x)
			}
		}
	}
	collect(stmt)

	var why string
	var walk func(v any, tableFunction bool)
	walk = func(v any, tableFunction bool) {
		if why != "" {
			return
		}
		switch t := v.(type) {
		case astObj:
			class, _ := t["class"].(string)
			typ, _ := t["type"].(string)
			name, _ := t["function_name"].(string)
			switch {
			case typ == "BASE_TABLE":
				table, _ := t["table_name"].(string)
				if !astEmpty(t["schema_name"]) || !astEmpty(t["catalog_name"]) || !(p.Relations[asciiLower(table)] || ctes[asciiLower(table)]) {
					why = "reads table " + table
				}
			case tableFunction:
				if !allowedTableFunctions[asciiLower(name)] || !astEmpty(t["schema"]) || !astEmpty(t["catalog"]) {
					why = "calls table function " + name
				}
			case class == "FUNCTION" || class == "WINDOW":
				if !allowedFunctions[asciiLower(name)] && !p.Macros[asciiLower(name)] || !astEmpty(t["catalog"]) ||
					!astEmpty(t["schema"]) && !parserQualifiedFunctions[asciiLower(name)] {
					why = "calls function " + name
				}
			case class == "COLUMN_REF":
				names, _ := t["column_names"].([]any)
				if len(names) > 0 {
					last, _ := names[len(names)-1].(string)
					if fn, ok := sqlValueFunctions[asciiLower(last)]; ok && !allowedFunctions[fn] {
						why = "names " + last
					}
				}
			case class == "PARAMETER" || typ == "SHOW_REF":
				why = "has " + class + typ
			}
			for k, x := range t {
				walk(x, typ == "TABLE_FUNCTION" && k == "function")
			}
		case []any:
			for _, x := range t {
				walk(x, false)
			}
		}
	}
	walk(stmt, false)
	return why
}
