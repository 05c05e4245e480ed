package guard

import "strings"

// WalkedFields are the fields of a node the walk checks, for readers of an accepted query's tree held
// to them (internal/querytree): kind is "expression <class>", "node <type>", "from <type>", "with",
// "cte" or "statement"; nil for a kind the walk does not know, which it refuses.
func WalkedFields(kind string) []string {
	var s *spec
	what, name, _ := strings.Cut(kind, " ")
	switch what {
	case "expression":
		s = exprSpecs[name]
	case "node":
		s = nodeSpecs[name]
	case "from":
		s = fromSpecs[name]
	case "with":
		s = withSpec
	case "cte":
		s = cteEntry
	case "statement":
		s = statementSpec
	}
	if s == nil {
		return nil
	}
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	return names
}
