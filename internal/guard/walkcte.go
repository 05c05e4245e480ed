package guard

// CTEs.

import (
	"maps"
	"strconv"
)

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
