package querytree

import "strings"

// EmptyMeansNoMatch reports whether an empty answer of the SELECT means that no row of its FROM passes
// its WHERE clause: it has no GROUP BY, HAVING, QUALIFY, sample, LIMIT or OFFSET, and no unnest in its
// select list (ORDER BY and DISTINCT keep a row for any that passes; an aggregate without GROUP BY
// answers a row anyway). Anything it does not know of makes it false.
func (s Select) EmptyMeansNoMatch() bool {
	o := s.o
	if o == nil || o["type"] != "SELECT_NODE" || astStr(o, "aggregate_handling") != "STANDARD_HANDLING" ||
		o["having"] != nil || o["qualify"] != nil || o["sample"] != nil {
		return false
	}
	for _, k := range []string{"group_expressions", "group_sets"} {
		if l, ok := o[k].([]any); !ok || len(l) > 0 {
			return false
		}
	}
	mods, ok := o["modifiers"].([]any)
	if !ok {
		return false
	}
	for _, m := range mods {
		mo, _ := m.(astObj)
		if t := astStr(mo, "type"); t != "ORDER_MODIFIER" && t != "DISTINCT_MODIFIER" {
			return false
		}
	}
	list, ok := o["select_list"].([]any)
	if !ok {
		return false
	}
	unnests := false
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case astObj:
			if fn := strings.ToLower(astStr(x, "function_name")); fn == "unnest" || fn == "unlist" {
				unnests = true
			}
			for _, c := range x {
				visit(c)
			}
		case []any:
			for _, c := range x {
				visit(c)
			}
		}
	}
	visit(list)
	return !unnests
}
