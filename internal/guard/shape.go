package guard

// Query shapes: an accepted query with its string literals taken out as parameters, so that later
// queries differing from it only in those literals can run one statement kept prepared, with no parse
// and no walk of their own. A shape is used only after CheckShape has proved, on DuckDB's own parse
// of both texts, that the shape reads exactly as the query it came from, and the guard has accepted
// the statement that runs it; a text the scanner is not sure of has no shape at all.

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// maxShapeLiterals bounds the parameters of one shape.
const maxShapeLiterals = 32

// Shaped is a query text split into its shape, the text with each string literal replaced by ?,
// and the literals' values in order.
type Shaped struct {
	Text     string
	Literals []string
}

// Shape splits text into its shape and literals. ok is false for any text the scanner does not read
// exactly as DuckDB's lexer would: comments, $ (dollar quotes, named parameters), ? or a backslash
// outside a literal, prefixed strings (E”, U&”, B”, X”, N”), unterminated quotes, text the guard
// refuses outright (see checkText), and text without literals.
func Shape(text string) (s Shaped, ok bool) {
	if checkText(text) != nil {
		return Shaped{}, false
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"':
			end := quotedEnd(text, i, '"')
			if end < 0 {
				return Shaped{}, false
			}
			b.WriteString(text[i:end])
			i = end
		case c == '\'':
			if i > 0 && prefixByte(text[i-1]) {
				return Shaped{}, false
			}
			end := quotedEnd(text, i, '\'')
			if end < 0 || len(s.Literals) == maxShapeLiterals {
				return Shaped{}, false
			}
			s.Literals = append(s.Literals, strings.ReplaceAll(text[i+1:end-1], "''", "'"))
			b.WriteByte('?')
			i = end
		case c == '?' || c == '$' || c == '\\',
			c == '-' && strings.HasPrefix(text[i:], "--"),
			c == '/' && strings.HasPrefix(text[i:], "/*"):
			return Shaped{}, false
		default:
			b.WriteByte(c)
			i++
		}
	}
	if len(s.Literals) == 0 {
		return Shaped{}, false
	}
	s.Text = b.String()
	return s, true
}

// Unshape is Shape's inverse: the shape's text with each ? replaced by its literal, quoted.
func (s Shaped) Unshape() string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s.Text); {
		switch c := s.Text[i]; {
		case c == '"':
			end := quotedEnd(s.Text, i, '"')
			if end < 0 {
				end = len(s.Text)
			}
			b.WriteString(s.Text[i:end])
			i = end
		case c == '?' && n < len(s.Literals):
			b.WriteString("'" + strings.ReplaceAll(s.Literals[n], "'", "''") + "'")
			n++
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// quotedEnd returns the index just past the quote closing the quoted text that starts at text[start]
// (a doubled quote is part of the text), or -1 when it is not closed.
func quotedEnd(text string, start int, quote byte) int {
	for i := start + 1; i < len(text); i++ {
		if text[i] != quote {
			continue
		}
		if i+1 < len(text) && text[i+1] == quote {
			i++
			continue
		}
		return i + 1
	}
	return -1
}

// prefixByte reports whether a quote after c may be a prefixed string (E'..', U&'..') or part of a
// word: letters, digits, _, &, and every byte of a multi-byte character.
func prefixByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '&' || c >= 0x80
}

// literalOperators are the operators and functions a shape's parameter may stand in: each compares
// or matches its operands whatever their values, so a literal and a parameter of the same value
// give the same answer. A literal anywhere else (a SELECT list, date_trunc's part, list_aggr's
// function name, a cast) keeps the query from having a shape.
var literalOperators = nameSet(
	"~~", "!~~", "~~*", "!~~*", "contains", "starts_with", "prefix", "ends_with", "suffix",
	"list_contains", "list_has", "array_contains", "array_has",
)

// CheckShape decides whether s, the shape of original, may run in original's place for texts of the
// same shape, and returns the statement that runs it with the row cap, the literals as its
// arguments. original must be a query Check accepted under p. It parses original, the shape and the
// statement that runs the shape, and requires that:
//   - the shape's tree is original's with each literal replaced by a parameter, in order, each one
//     an operand of a comparison, IN, BETWEEN or one of literalOperators;
//   - the guard accepts the running statement under p, with those parameters;
//   - the running statement is SELECT * FROM (<the shape's tree>) LIMIT rowCap+1, nothing else, where
//     the shape's own top-level LIMIT n, when n is at most rowCap, reads n+1 (as Check runs a query).
//
// A *Rejection says why the shape cannot be used; any other error is DuckDB's or the context's.
func CheckShape(ctx context.Context, conn Parser, original string, s Shaped, p Policy, rowCap int) (*Checked, error) {
	if conn == nil {
		return nil, errors.New("guard: CheckShape needs a connection")
	}
	if rowCap < 1 || rowCap > maxRowCap {
		return nil, errors.New("guard: CheckShape: rowCap out of range")
	}
	orig, err := parse(ctx, conn, original)
	if err != nil {
		return nil, err
	}
	shape, err := parse(ctx, conn, s.Text)
	if err != nil {
		return nil, err
	}
	cmp := shapeComparer{literals: s.Literals, seen: make([]bool, len(s.Literals))}
	if !cmp.same(orig["node"], shape["node"], "") {
		return nil, &Rejection{Refused: "shape", Reason: "the shape does not read as the query: " + cmp.why}
	}
	for i, seen := range cmp.seen {
		if !seen {
			return nil, &Rejection{Refused: "shape", Reason: "literal " + strconv.Itoa(i+1) + " has no parameter"}
		}
	}
	// The shape's own LIMIT n runs as n+1, as Check runs its query (limit.go).
	runShape, runTree, rows := s.Text, shape, rowCap
	n, raise, rej := ownLimit(shape, rowCap)
	if rej != nil {
		return nil, rej
	}
	if raise {
		var ok bool
		if runShape, ok = raisedLimit(s.Text, shape, n); !ok {
			return nil, unraisable(rowCap)
		}
		runTree, rows = withLimit(shape, n+1), n
	}
	runText := shapeRunSQL(runShape, rowCap)
	run, err := parse(ctx, conn, runText)
	if err != nil {
		return nil, err
	}
	w := &walker{policy: p, params: len(s.Literals)}
	if rej := w.object(statementSpec, run, env{}); rej != nil {
		return nil, rej
	}
	if !isShapeRun(run, runTree, rowCap) {
		return nil, &Rejection{Refused: "shape", Reason: "the running statement is not the shape under the row cap"}
	}
	return &Checked{run: SQL{runText}, args: s.Args(), shape: s.Text, rows: rows}, nil
}

// ForShape is the statement of a shape CheckShape proved, with the literals of s, a query of the same
// shape, as its arguments; ok is false for a statement of no shape or of another one.
func (c *Checked) ForShape(s Shaped) (*Checked, bool) {
	if c == nil || c.shape == "" || c.shape != s.Text {
		return nil, false
	}
	return &Checked{run: c.run, args: s.Args(), shape: c.shape, rows: c.rows}, true
}

// Args are the literals as the arguments of the statement that runs the shape.
func (s Shaped) Args() []any {
	args := make([]any, len(s.Literals))
	for i, l := range s.Literals {
		args[i] = l
	}
	return args
}

// shapeRunSQL is the statement that runs a shape with the row cap; the line breaks keep the shape's
// text on lines of its own.
func shapeRunSQL(shape string, rowCap int) string {
	return "SELECT * FROM (\n" + shape + "\n) AS ctool_q LIMIT " + strconv.Itoa(rowCap+1)
}

// isShapeRun reports whether run is SELECT * FROM (<shape's node>) AS ctool_q LIMIT rowCap+1.
func isShapeRun(run, shape astObj, rowCap int) bool {
	node, _ := run["node"].(astObj)
	from, _ := node["from_table"].(astObj)
	sub, _ := from["subquery"].(astObj)
	list, _ := node["select_list"].([]any)
	mods, _ := node["modifiers"].([]any)
	if astStr(node, "type") != "SELECT_NODE" || astStr(from, "type") != "SUBQUERY" || astStr(from, "alias") != "ctool_q" ||
		len(list) != 1 || len(mods) != 1 || node["where_clause"] != nil || !astEmpty(node["group_expressions"]) ||
		node["having"] != nil || node["qualify"] != nil || !noCTEs(node["cte_map"]) {
		return false
	}
	star, _ := list[0].(astObj)
	limit, _ := mods[0].(astObj)
	lim, _ := limit["limit"].(astObj)
	val, _ := lim["value"].(astObj)
	if astStr(star, "class") != "STAR" || !astEmpty(star["exclude_list"]) || !astEmpty(star["replace_list"]) ||
		astStr(limit, "type") != "LIMIT_MODIFIER" || limit["offset"] != nil || astStr(lim, "class") != "CONSTANT" ||
		numberString(val["value"]) != strconv.Itoa(rowCap+1) {
		return false
	}
	cmp := shapeComparer{exact: true}
	return cmp.same(sub["node"], shape["node"], "")
}

func noCTEs(v any) bool {
	m, ok := v.(astObj)
	return v == nil || ok && astEmpty(m["map"])
}

func numberString(v any) string {
	switch n := v.(type) {
	case string:
		return n
	case interface{ String() string }:
		return n.String()
	}
	return ""
}

// shapeComparer compares an original tree with its shape's: equal but for query_location, and each
// parameter of the shape standing for the original's constant of the literal it numbers.
type shapeComparer struct {
	exact    bool // parameters compare as any node: both trees are shapes
	literals []string
	seen     []bool
	why      string
}

func (c *shapeComparer) same(orig, shape any, parentOp string) bool {
	switch s := shape.(type) {
	case astObj:
		if !c.exact && astStr(s, "class") == "PARAMETER" {
			return c.parameter(orig, s, parentOp)
		}
		o, ok := orig.(astObj)
		if !ok || len(o) != len(s) {
			c.why = "a node differs"
			return false
		}
		op := shapeOperator(s)
		for k, sv := range s {
			fieldOp := ""
			if operandFields[k] {
				fieldOp = op
			}
			ov, ok := o[k]
			if !ok {
				c.why = "a field differs"
				return false
			}
			if k == "query_location" || k == "named_param_map" {
				continue
			}
			if !c.same(ov, sv, fieldOp) {
				return false
			}
		}
		return true
	case []any:
		o, ok := orig.([]any)
		if !ok || len(o) != len(s) {
			c.why = "a list differs"
			return false
		}
		for i := range s {
			if !c.same(o[i], s[i], parentOp) {
				return false
			}
		}
		return true
	default:
		if numberString(orig) != numberString(shape) || (numberString(shape) == "" && orig != shape) {
			c.why = "a value differs"
			return false
		}
		return true
	}
}

// parameter checks one parameter of the shape against the original's node in its place.
func (c *shapeComparer) parameter(orig any, param astObj, parentOp string) bool {
	n, err := strconv.Atoi(astStr(param, "identifier"))
	if err != nil || n < 1 || n > len(c.literals) || c.seen[n-1] {
		c.why = "a parameter is not one of the literals"
		return false
	}
	o, _ := orig.(astObj)
	val, _ := o["value"].(astObj)
	typ, _ := val["type"].(astObj)
	v, isString := val["value"].(string)
	if astStr(o, "class") != "CONSTANT" || astStr(typ, "id") != "VARCHAR" || !isString || v != c.literals[n-1] || o["alias"] != param["alias"] {
		c.why = "literal " + strconv.Itoa(n) + " is not a string constant in the query"
		return false
	}
	if parentOp == "" {
		c.why = "literal " + strconv.Itoa(n) + " is not an operand of a comparison"
		return false
	}
	c.seen[n-1] = true
	return true
}

// operandFields are the fields that hold an operator's operands (children for IN and functions).
var operandFields = map[string]bool{"left": true, "right": true, "input": true, "lower": true, "upper": true, "children": true}

// shapeOperator names the node's operator if its operands may be parameters, or "".
func shapeOperator(o astObj) string {
	switch astStr(o, "class") {
	case "COMPARISON", "BETWEEN":
		return astStr(o, "type")
	case "OPERATOR":
		if t := astStr(o, "type"); t == "COMPARE_IN" || t == "COMPARE_NOT_IN" {
			return t
		}
	case "FUNCTION":
		if name := astStr(o, "function_name"); literalOperators[name] && astStr(o, "schema") == "" && astStr(o, "catalog") == "" {
			return name
		}
	}
	return ""
}
