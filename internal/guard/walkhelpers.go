package guard

// Helpers.

import (
	"sort"
	"strings"
)

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

// SameName tells whether two names are one to DuckDB's case-insensitive lookup (ASCII only), for
// readers of the tree that match names as the walk does.
func SameName(a, b string) bool { return asciiLower(a) == asciiLower(b) }

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
