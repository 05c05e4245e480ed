package query

// The guard of the SQL an agent sends to ctool query. Every decision is made on the AST that DuckDB's
// own parser produces (json_serialize_sql), never on the text, and everything the guard does not
// recognise is refused.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Policy says what a query may read.
type Policy struct {
	// Relations: lower-cased names of the tables/views a query may read, including alias views
	// whose names look like file names, e.g. "events", "events_typed", "stores", "store_hours",
	// "events.csv", "input/events.csv", "filtered_product_data.csv".
	Relations map[string]bool
	// Macros: lower-cased names of the product's own macros that may be called (is_open, tokyo_now).
	Macros map[string]bool
}

// Rejection is a query refused by the guard; Error() gives the whole message for the agent.
type Rejection struct{ Refused, Reason, Hint string }

// Error says what was refused, why, and what to do instead, in one message.
func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("refused: ")
	b.WriteString(r.Refused)
	b.WriteString(".")
	if r.Reason != "" {
		b.WriteString(" ")
		b.WriteString(r.Reason)
	}
	if r.Hint != "" {
		b.WriteString(" ")
		b.WriteString(r.Hint)
	}
	return b.String()
}

const (
	// onlySelect is the rule every refusal of a statement repeats, so the agent learns what is allowed.
	onlySelect = "ctool query runs exactly one read-only SELECT statement (WITH, UNION, VALUES, ORDER BY, " +
		"window functions and QUALIFY are fine)."
	wrapperAlias = "ctool_q"
	// maxQueryBytes keeps a runaway prompt from reaching the parser.
	maxQueryBytes = 100_000
	maxRowCap     = 1_000_000_000
	// DuckDB's built-ins are named with their catalog so no macro of the opened database can stand in.
	serializeSQL   = "SELECT CAST(system.main.json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"
	deserializeSQL = "SELECT CAST(system.main.json_deserialize_sql(CAST(? AS JSON)) AS VARCHAR)"
)

// Check parses sqlText with DuckDB's own parser (json_serialize_sql, called through conn with the
// text as a bound parameter, never concatenated) and returns the single statement to execute:
// the user's one SELECT wrapped as  "SELECT * FROM (\n<inner>\n) AS ctool_q LIMIT <rowCap+1>"
// (the caller reads rowCap+1 rows to know whether more matched). It returns *Rejection for refused input
// and a plain error only when DuckDB itself fails.
func Check(ctx context.Context, conn *sql.Conn, sqlText string, p Policy, rowCap int) (string, error) {
	if conn == nil {
		return "", errors.New("query: Check needs a connection")
	}
	if rowCap < 1 || rowCap > maxRowCap {
		return "", fmt.Errorf("query: rowCap must be between 1 and %d, got %d", maxRowCap, rowCap)
	}
	if rej := checkQueryText(sqlText); rej != nil {
		return "", rej
	}
	res, err := serializeText(ctx, conn, sqlText)
	if err != nil {
		return "", err
	}
	if res.Error {
		return "", parseFailure(sqlText, res)
	}
	switch n := len(res.Statements); {
	case n == 0:
		return "", &Rejection{
			Refused: "empty query",
			Reason:  "There is no SQL statement in the text (only whitespace or comments).",
			Hint:    "Send one SELECT, e.g. SELECT * FROM events LIMIT 5.",
		}
	case n > 1:
		return "", &Rejection{
			Refused: fmt.Sprintf("%d statements", n),
			Reason:  onlySelect,
			Hint:    "Send a single SELECT with nothing after its ';'; nothing was run.",
		}
	}
	stmt, err := decodeAST(res.Statements[0])
	if err != nil {
		return "", fmt.Errorf("query: reading DuckDB's parse: %w", err)
	}
	g := &astGuard{policy: p}
	if rej := g.statement(stmt, nil); rej != nil {
		return "", rej
	}
	checked := stripLocations(stmt.(astObj)["node"])

	// First the agent's own text, so its layout survives; then DuckDB's canonical text of the same AST.
	inner := strings.TrimRight(sqlText, " \t\r\n\f\v;")
	final := wrapRowCap(inner, rowCap)
	ok, err := verifyWrapped(ctx, conn, final, checked, rowCap)
	if err != nil {
		return "", err
	}
	if ok {
		return final, nil
	}
	canonical, err := deserializeAST(ctx, conn, res.Statements[0])
	if err != nil {
		return "", err
	}
	if canonical != "" {
		final = wrapRowCap(strings.TrimRight(canonical, " \t\r\n\f\v;"), rowCap)
		ok, err = verifyWrapped(ctx, conn, final, checked, rowCap)
		if err != nil {
			return "", err
		}
		if ok {
			return final, nil
		}
	}
	return "", &Rejection{
		Refused: "row limit",
		Reason:  "Could not apply the row limit safely; rewrite the query without trailing comments.",
		Hint:    onlySelect,
	}
}

// checkQueryText refuses text the parser should never see: too long, not UTF-8, or with a NUL byte, which
// C APIs would cut the executed text at while the parser read past it.
func checkQueryText(s string) *Rejection {
	switch {
	case len(s) > maxQueryBytes:
		return &Rejection{Refused: "query too long", Reason: fmt.Sprintf("The text has %d bytes; the limit is %d.", len(s), maxQueryBytes), Hint: "Send a shorter SELECT."}
	case !utf8.ValidString(s):
		return &Rejection{Refused: "invalid text", Reason: "The query is not valid UTF-8.", Hint: "Send the SELECT as plain UTF-8 text."}
	case strings.ContainsRune(s, 0):
		return &Rejection{Refused: "NUL byte", Reason: "The query contains a NUL (0x00) character.", Hint: "Remove it and send the SELECT again."}
	}
	return nil
}

func wrapRowCap(inner string, rowCap int) string {
	return "SELECT * FROM (\n" + inner + "\n) AS " + wrapperAlias + " LIMIT " + strconv.Itoa(rowCap+1)
}

// serializeResult is json_serialize_sql's answer; it reports failures in the JSON instead of raising.
type serializeResult struct {
	Error        bool              `json:"error"`
	ErrorType    string            `json:"error_type"`
	ErrorMessage string            `json:"error_message"`
	Statements   []json.RawMessage `json:"statements"`
}

func serializeText(ctx context.Context, conn *sql.Conn, text string) (*serializeResult, error) {
	var out sql.NullString
	if err := conn.QueryRowContext(ctx, serializeSQL, text).Scan(&out); err != nil {
		return nil, fmt.Errorf("query: json_serialize_sql failed: %w", err)
	}
	if !out.Valid {
		return nil, errors.New("query: json_serialize_sql returned NULL")
	}
	var res serializeResult
	if err := json.Unmarshal([]byte(out.String), &res); err != nil {
		return nil, fmt.Errorf("query: reading json_serialize_sql output: %w", err)
	}
	return &res, nil
}

// deserializeAST returns DuckDB's canonical SQL for one checked statement, or "" if DuckDB cannot print it.
func deserializeAST(ctx context.Context, conn *sql.Conn, stmt json.RawMessage) (string, error) {
	doc, err := json.Marshal(struct {
		Error      bool              `json:"error"`
		Statements []json.RawMessage `json:"statements"`
	}{false, []json.RawMessage{stmt}})
	if err != nil {
		return "", fmt.Errorf("query: %w", err)
	}
	var out sql.NullString
	if err := conn.QueryRowContext(ctx, deserializeSQL, string(doc)).Scan(&out); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("query: json_deserialize_sql failed: %w", err)
		}
		// Some checked ASTs have no SQL form; the caller then refuses the query.
		return "", nil
	}
	return out.String, nil
}

// verifyWrapped parses the final text and accepts it only if it is exactly the wrapper around the
// node that was checked: one SELECT * FROM (<checked>) AS ctool_q LIMIT rowCap+1 and nothing else.
func verifyWrapped(ctx context.Context, conn *sql.Conn, final string, checked any, rowCap int) (bool, error) {
	if checkQueryText(final) != nil {
		return false, nil
	}
	res, err := serializeText(ctx, conn, final)
	if err != nil {
		return false, err
	}
	if res.Error || len(res.Statements) != 1 {
		return false, nil
	}
	got, err := decodeAST(res.Statements[0])
	if err != nil {
		return false, nil
	}
	// The expected shape comes from parsing a wrapper whose inner query is known, with the checked
	// node put in its place, so every field of the outer SELECT must match exactly.
	tmpl, err := serializeText(ctx, conn, wrapRowCap("SELECT 1", rowCap))
	if err != nil {
		return false, err
	}
	if tmpl.Error || len(tmpl.Statements) != 1 {
		return false, errors.New("query: DuckDB could not parse the row-limit wrapper")
	}
	want, err := decodeAST(tmpl.Statements[0])
	if err != nil {
		return false, fmt.Errorf("query: %w", err)
	}
	sub, ok := wrapperSubquery(want, rowCap)
	if !ok {
		return false, errors.New("query: the row-limit wrapper parsed to an unexpected shape")
	}
	sub["node"] = checked
	return reflect.DeepEqual(stripLocations(got), stripLocations(want)), nil
}

// wrapperSubquery checks the outer shape of a parsed wrapper and returns its subquery statement.
func wrapperSubquery(stmt any, rowCap int) (astObj, bool) {
	s, ok := stmt.(astObj)
	if !ok || !astEmpty(s["named_param_map"]) {
		return nil, false
	}
	node, ok := s["node"].(astObj)
	if !ok || node["type"] != "SELECT_NODE" {
		return nil, false
	}
	mods, ok := node["modifiers"].([]any)
	if !ok || len(mods) != 1 {
		return nil, false
	}
	limit, ok := mods[0].(astObj)
	if !ok || limit["type"] != "LIMIT_MODIFIER" || limit["offset"] != nil {
		return nil, false
	}
	lim, ok := limit["limit"].(astObj)
	if !ok || lim["class"] != "CONSTANT" {
		return nil, false
	}
	val, _ := lim["value"].(astObj)
	if n, ok := val["value"].(json.Number); !ok || n.String() != strconv.Itoa(rowCap+1) {
		return nil, false
	}
	list, ok := node["select_list"].([]any)
	if !ok || len(list) != 1 {
		return nil, false
	}
	if star, ok := list[0].(astObj); !ok || star["class"] != "STAR" {
		return nil, false
	}
	from, ok := node["from_table"].(astObj)
	if !ok || from["type"] != "SUBQUERY" || from["alias"] != wrapperAlias {
		return nil, false
	}
	sub, ok := from["subquery"].(astObj)
	return sub, ok
}

// parseFailure turns json_serialize_sql's error into a refusal the agent can act on.
func parseFailure(text string, res *serializeResult) *Rejection {
	msg := strings.TrimSpace(res.ErrorMessage)
	if msg != "" && !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	if strings.Contains(msg, "Only SELECT statements can be serialized") {
		return statementRejection(firstKeyword(text))
	}
	if res.ErrorType == "parser" {
		return &Rejection{
			Refused: "syntax error",
			Reason:  "DuckDB could not parse the query: " + msg,
			Hint:    "Fix the SQL and send it again; " + onlySelect,
		}
	}
	return &Rejection{
		Refused: "query",
		Reason:  "DuckDB could not read the query (" + res.ErrorType + "): " + msg,
		Hint:    onlySelect,
	}
}

// statementKinds are the leading keywords of statements that are not a plain SELECT; they only name
// what was refused, the refusal itself comes from DuckDB's parser.
var statementKinds = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "DROP": true, "ALTER": true, "CREATE": true,
	"TRUNCATE": true, "COPY": true, "EXPORT": true, "IMPORT": true, "ATTACH": true, "DETACH": true,
	"INSTALL": true, "FORCE": true, "LOAD": true, "SET": true, "RESET": true, "PRAGMA": true,
	"CALL": true, "EXECUTE": true, "PREPARE": true, "DEALLOCATE": true, "CHECKPOINT": true,
	"VACUUM": true, "ANALYZE": true, "DESCRIBE": true, "SUMMARIZE": true, "SHOW": true, "EXPLAIN": true,
	"USE": true, "BEGIN": true, "START": true, "COMMIT": true, "END": true, "ROLLBACK": true,
	"ABORT": true, "MERGE": true, "COMMENT": true, "PIVOT": true, "UNPIVOT": true, "PIVOT_WIDER": true,
	"PIVOT_LONGER": true, "REPLACE": true, "UPSERT": true,
}

func statementRejection(kw string) *Rejection {
	switch {
	case kw == "PIVOT" || kw == "PIVOT_WIDER" || kw == "UNPIVOT" || kw == "PIVOT_LONGER":
		return &Rejection{
			Refused: kw + " without an explicit IN list",
			Reason:  "DuckDB runs such a " + kw + " as several statements. " + onlySelect,
			Hint:    "List the values, e.g. PIVOT events ON registration_required IN ('True', 'False') USING count(*).",
		}
	case statementKinds[kw]:
		return &Rejection{Refused: kw, Reason: onlySelect}
	case kw == "" || kw == "SELECT" || kw == "WITH" || kw == "FROM" || kw == "VALUES" || kw == "TABLE":
		return &Rejection{
			Refused: "a statement that is not a SELECT",
			Reason:  onlySelect,
			Hint:    "The text holds a second statement after a ';', or a WITH followed by something other than SELECT; nothing was run. Send only the SELECT.",
		}
	default:
		return &Rejection{Refused: kw, Reason: onlySelect}
	}
}

// firstKeyword returns the upper-cased first word of text after whitespace, comments and '('; it is
// used only to name a refused statement in the message.
func firstKeyword(text string) string {
	s := text
	for {
		t := strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
		switch {
		case strings.HasPrefix(t, "--"):
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				s = t[i+1:]
			} else {
				s = ""
			}
			continue
		case strings.HasPrefix(t, "/*"):
			s = skipBlockComment(t)
			continue
		}
		s = t
		break
	}
	end := 0
	for end < len(s) && end < 32 {
		c := s[end]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			break
		}
		end++
	}
	return strings.ToUpper(s[:end])
}

// skipBlockComment drops a leading /* ... */, which may nest as in PostgreSQL.
func skipBlockComment(s string) string {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

type astObj = map[string]any

// decodeAST keeps numbers as json.Number so large values (query_location is 2^64-1) compare exactly.
func decodeAST(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// stripLocations copies v without "query_location", the only field that depends on the text layout.
func stripLocations(v any) any {
	switch t := v.(type) {
	case astObj:
		out := make(astObj, len(t))
		for k, x := range t {
			if k != "query_location" {
				out[k] = stripLocations(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = stripLocations(x)
		}
		return out
	}
	return v
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

func (s *cteScope) with(name string) *cteScope {
	return &cteScope{names: map[string]bool{name: true}, parent: s}
}

// astGuard walks one parsed statement; every node kind it does not know is refused.
type astGuard struct {
	policy Policy
}

func unknownPart(what string) *Rejection {
	return &Rejection{
		Refused: what,
		Reason:  "ctool query does not recognise this part of the parsed query, so it refuses it.",
		Hint:    "Rewrite it with ordinary SELECT syntax. " + onlySelect,
	}
}

// checkFields refuses any key of o outside allowed that carries a value, so a field added by a later
// DuckDB release cannot smuggle an expression past the walk.
func checkFields(o astObj, what string, allowed ...string) *Rejection {
	for k, v := range o {
		if k == "query_location" || astEmpty(v) {
			continue
		}
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			return unknownPart(fmt.Sprintf("%s field %q", what, k))
		}
	}
	return nil
}

func astAsObj(v any, what string) (astObj, *Rejection) {
	o, ok := v.(astObj)
	if !ok {
		return nil, unknownPart(what)
	}
	return o, nil
}

func astAsList(v any, what string) ([]any, *Rejection) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, unknownPart(what)
	}
	return l, nil
}

func astStr(o astObj, k string) string {
	s, _ := o[k].(string)
	return s
}

// statement checks {node, named_param_map}, the form of the top level and of every subquery.
func (g *astGuard) statement(v any, sc *cteScope) *Rejection {
	o, rej := astAsObj(v, "statement")
	if rej != nil {
		return rej
	}
	if !astEmpty(o["named_param_map"]) {
		return parameterRejection("")
	}
	if rej := checkFields(o, "statement", "node", "named_param_map"); rej != nil {
		return rej
	}
	return g.queryNode(o["node"], sc)
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

// ctes checks a WITH list and returns the scope its query body sees. A CTE sees the earlier CTEs of
// its WITH and, only as the recursive part of a RECURSIVE union, itself; DuckDB resolves any other
// use of its own name to the catalog, so the guard must too.
func (g *astGuard) ctes(v any, sc *cteScope) (*cteScope, *Rejection) {
	if v == nil {
		return sc, nil
	}
	cm, rej := astAsObj(v, "WITH clause")
	if rej != nil {
		return nil, rej
	}
	if rej := checkFields(cm, "WITH clause", "map"); rej != nil {
		return nil, rej
	}
	entries, rej := astAsList(cm["map"], "WITH clause")
	if rej != nil || len(entries) == 0 {
		return sc, rej
	}
	inner := &cteScope{names: map[string]bool{}, parent: sc}
	for _, e := range entries {
		entry, rej := astAsObj(e, "CTE")
		if rej != nil {
			return nil, rej
		}
		if rej := checkFields(entry, "CTE", "key", "value"); rej != nil {
			return nil, rej
		}
		name, ok := entry["key"].(string)
		if !ok || name == "" {
			return nil, unknownPart("CTE without a name")
		}
		cte, rej := astAsObj(entry["value"], "CTE "+name)
		if rej != nil {
			return nil, rej
		}
		if rej := checkFields(cte, "CTE", "query", "aliases", "materialized", "key_targets"); rej != nil {
			return nil, rej
		}
		// Each CTE body sees only the CTEs before it: snapshot the names so far.
		before := &cteScope{names: copyNames(inner.names), parent: sc}
		if rej := g.exprList(cte["key_targets"], before); rej != nil {
			return nil, rej
		}
		if rej := g.cteBody(asciiLower(name), cte["query"], before); rej != nil {
			return nil, rej
		}
		inner.names[asciiLower(name)] = true
	}
	return inner, nil
}

func copyNames(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// cteBody checks the statement of one CTE; a RECURSIVE_CTE_NODE named like the CTE may read the CTE
// in its recursive (right) part only.
func (g *astGuard) cteBody(name string, v any, sc *cteScope) *Rejection {
	st, rej := astAsObj(v, "CTE "+name)
	if rej != nil {
		return rej
	}
	if !astEmpty(st["named_param_map"]) {
		return parameterRejection("")
	}
	if rej := checkFields(st, "CTE", "node", "named_param_map"); rej != nil {
		return rej
	}
	node, rej := astAsObj(st["node"], "CTE "+name)
	if rej != nil {
		return rej
	}
	if node["type"] != "RECURSIVE_CTE_NODE" {
		return g.queryNode(node, sc)
	}
	if asciiLower(astStr(node, "cte_name")) != name {
		return unknownPart("recursive CTE " + strconv.Quote(astStr(node, "cte_name")) + " inside CTE " + strconv.Quote(name))
	}
	if rej := checkFields(node, "recursive CTE", "type", "modifiers", "cte_map", "cte_name", "union_all", "left", "right", "aliases", "key_targets"); rej != nil {
		return rej
	}
	inner, rej := g.ctes(node["cte_map"], sc)
	if rej != nil {
		return rej
	}
	if rej := g.queryNode(node["left"], inner); rej != nil {
		return rej
	}
	self := inner.with(name)
	if rej := g.queryNode(node["right"], self); rej != nil {
		return rej
	}
	if rej := g.exprList(node["key_targets"], self); rej != nil {
		return rej
	}
	return g.modifiers(node["modifiers"], inner)
}

func (g *astGuard) queryNode(v any, sc *cteScope) *Rejection {
	node, rej := astAsObj(v, "query")
	if rej != nil {
		return rej
	}
	switch typ := astStr(node, "type"); typ {
	case "SELECT_NODE":
		if rej := checkFields(node, "SELECT", "type", "modifiers", "cte_map", "select_list", "from_table",
			"where_clause", "group_expressions", "group_sets", "aggregate_handling", "having", "sample", "qualify"); rej != nil {
			return rej
		}
		inner, rej := g.ctes(node["cte_map"], sc)
		if rej != nil {
			return rej
		}
		// FROM first: it is what the rest of the SELECT reads.
		if rej := g.tableRef(node["from_table"], inner); rej != nil {
			return rej
		}
		for _, k := range []string{"select_list", "group_expressions"} {
			if rej := g.exprList(node[k], inner); rej != nil {
				return rej
			}
		}
		for _, k := range []string{"where_clause", "having", "qualify"} {
			if rej := g.expr(node[k], inner); rej != nil {
				return rej
			}
		}
		return g.modifiers(node["modifiers"], inner)
	case "SET_OPERATION_NODE":
		if rej := checkFields(node, "set operation", "type", "modifiers", "cte_map", "setop_type", "setop_all", "left", "right"); rej != nil {
			return rej
		}
		inner, rej := g.ctes(node["cte_map"], sc)
		if rej != nil {
			return rej
		}
		if rej := g.queryNode(node["left"], inner); rej != nil {
			return rej
		}
		if rej := g.queryNode(node["right"], inner); rej != nil {
			return rej
		}
		return g.modifiers(node["modifiers"], inner)
	case "":
		return unknownPart("query node")
	default:
		return unknownPart("query node " + typ)
	}
}

func (g *astGuard) modifiers(v any, sc *cteScope) *Rejection {
	mods, rej := astAsList(v, "result modifiers")
	if rej != nil {
		return rej
	}
	for _, m := range mods {
		mod, rej := astAsObj(m, "result modifier")
		if rej != nil {
			return rej
		}
		switch typ := astStr(mod, "type"); typ {
		case "LIMIT_MODIFIER", "LIMIT_PERCENT_MODIFIER":
			if rej := checkFields(mod, typ, "type", "limit", "offset"); rej != nil {
				return rej
			}
			if rej := g.expr(mod["limit"], sc); rej != nil {
				return rej
			}
			if rej := g.expr(mod["offset"], sc); rej != nil {
				return rej
			}
		case "ORDER_MODIFIER":
			if rej := g.orderModifier(mod, sc); rej != nil {
				return rej
			}
		case "DISTINCT_MODIFIER":
			if rej := checkFields(mod, typ, "type", "distinct_on_targets"); rej != nil {
				return rej
			}
			if rej := g.exprList(mod["distinct_on_targets"], sc); rej != nil {
				return rej
			}
		default:
			return unknownPart("result modifier " + typ)
		}
	}
	return nil
}

func (g *astGuard) orderModifier(v any, sc *cteScope) *Rejection {
	if v == nil {
		return nil
	}
	mod, rej := astAsObj(v, "ORDER BY")
	if rej != nil {
		return rej
	}
	if astStr(mod, "type") != "ORDER_MODIFIER" {
		return unknownPart("ORDER BY of type " + astStr(mod, "type"))
	}
	if rej := checkFields(mod, "ORDER BY", "type", "orders"); rej != nil {
		return rej
	}
	return g.orders(mod["orders"], sc)
}

// orders checks [{type, null_order, expression}] lists (ORDER BY, window ORDER BY, aggregate ORDER BY).
func (g *astGuard) orders(v any, sc *cteScope) *Rejection {
	list, rej := astAsList(v, "ORDER BY")
	if rej != nil {
		return rej
	}
	for _, x := range list {
		o, rej := astAsObj(x, "ORDER BY item")
		if rej != nil {
			return rej
		}
		if rej := checkFields(o, "ORDER BY item", "type", "null_order", "expression"); rej != nil {
			return rej
		}
		if rej := g.expr(o["expression"], sc); rej != nil {
			return rej
		}
	}
	return nil
}

func (g *astGuard) tableRef(v any, sc *cteScope) *Rejection {
	if v == nil {
		return nil
	}
	ref, rej := astAsObj(v, "FROM item")
	if rej != nil {
		return rej
	}
	common := []string{"type", "alias", "sample"}
	switch typ := astStr(ref, "type"); typ {
	case "EMPTY":
		return checkFields(ref, "FROM", common...)
	case "BASE_TABLE":
		if rej := checkFields(ref, "table", append(common, "schema_name", "table_name", "column_name_alias", "catalog_name", "at_clause")...); rej != nil {
			return rej
		}
		return g.baseTable(ref, sc)
	case "JOIN":
		if rej := checkFields(ref, "JOIN", append(common, "left", "right", "condition", "join_type", "ref_type", "using_columns")...); rej != nil {
			return rej
		}
		if rej := g.tableRef(ref["left"], sc); rej != nil {
			return rej
		}
		if rej := g.tableRef(ref["right"], sc); rej != nil {
			return rej
		}
		return g.expr(ref["condition"], sc)
	case "SUBQUERY":
		if rej := checkFields(ref, "subquery", append(common, "subquery", "column_name_alias")...); rej != nil {
			return rej
		}
		return g.statement(ref["subquery"], sc)
	case "TABLE_FUNCTION":
		if rej := checkFields(ref, "table function", append(common, "function", "column_name_alias", "with_ordinality")...); rej != nil {
			return rej
		}
		return g.tableFunction(ref["function"], sc)
	case "EXPRESSION_LIST":
		if rej := checkFields(ref, "VALUES", append(common, "values", "expected_names", "expected_types")...); rej != nil {
			return rej
		}
		if !astEmpty(ref["expected_types"]) {
			return unknownPart("VALUES with declared types")
		}
		rows, rej := astAsList(ref["values"], "VALUES")
		if rej != nil {
			return rej
		}
		for _, row := range rows {
			if rej := g.exprList(row, sc); rej != nil {
				return rej
			}
		}
		return nil
	case "PIVOT":
		if rej := checkFields(ref, "PIVOT", append(common, "source", "aggregates", "unpivot_names", "pivots", "groups", "column_name_alias", "include_nulls")...); rej != nil {
			return rej
		}
		if rej := g.tableRef(ref["source"], sc); rej != nil {
			return rej
		}
		if rej := g.exprList(ref["aggregates"], sc); rej != nil {
			return rej
		}
		return g.pivots(ref["pivots"], sc)
	case "SHOW_REF":
		kind := "SHOW"
		switch astStr(ref, "show_type") {
		case "DESCRIBE":
			kind = "DESCRIBE"
		case "SUMMARY":
			kind = "SUMMARIZE"
		}
		return &Rejection{
			Refused: kind,
			Reason:  "Metadata statements (DESCRIBE, SUMMARIZE, SHOW) are not available. " + onlySelect,
			Hint:    "To see the columns, run SELECT * FROM <table> LIMIT 3. " + g.relationsHint(),
		}
	default:
		return unknownPart("FROM item of type " + typ)
	}
}

func (g *astGuard) pivots(v any, sc *cteScope) *Rejection {
	list, rej := astAsList(v, "PIVOT")
	if rej != nil {
		return rej
	}
	for _, x := range list {
		p, rej := astAsObj(x, "PIVOT column")
		if rej != nil {
			return rej
		}
		if rej := checkFields(p, "PIVOT column", "pivot_expressions", "unpivot_names", "entries", "pivot_enum"); rej != nil {
			return rej
		}
		if astStr(p, "pivot_enum") != "" {
			return &Rejection{
				Refused: "PIVOT ... IN " + astStr(p, "pivot_enum"),
				Reason:  "Pivoting on a named ENUM type reads the catalog.",
				Hint:    "List the values instead: IN ('a', 'b').",
			}
		}
		if rej := g.exprList(p["pivot_expressions"], sc); rej != nil {
			return rej
		}
		entries, rej := astAsList(p["entries"], "PIVOT IN list")
		if rej != nil {
			return rej
		}
		for _, e := range entries {
			entry, rej := astAsObj(e, "PIVOT IN entry")
			if rej != nil {
				return rej
			}
			if rej := checkFields(entry, "PIVOT IN entry", "values", "star_expr", "alias"); rej != nil {
				return rej
			}
			if rej := g.expr(entry["star_expr"], sc); rej != nil {
				return rej
			}
		}
	}
	return nil
}

func (g *astGuard) baseTable(ref astObj, sc *cteScope) *Rejection {
	name := astStr(ref, "table_name")
	if ref["at_clause"] != nil {
		return &Rejection{
			Refused: "AT (...) time travel on " + strconv.Quote(name),
			Reason:  "ctool query reads only the current data.",
			Hint:    "Remove the AT (VERSION/TIMESTAMP => ...) clause.",
		}
	}
	if cat, sch := astStr(ref, "catalog_name"), astStr(ref, "schema_name"); cat != "" || sch != "" {
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
			Hint:    "Use the bare name, and quote names that contain dots or slashes (FROM 'events.csv'). " + g.relationsHint(),
		}
	}
	l := asciiLower(name)
	if sc.has(l) || g.policy.Relations[l] {
		return nil
	}
	return &Rejection{
		Refused: "table " + strconv.Quote(name),
		Reason:  "It is not one of the tables ctool query may read, and no CTE of that name is visible there.",
		Hint:    g.relationsHint(),
	}
}

func (g *astGuard) relationsHint() string {
	names := make([]string, 0, len(g.policy.Relations))
	for n, ok := range g.policy.Relations {
		if ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "No tables are available."
	}
	return "Tables you may use: " + strings.Join(names, ", ") + "."
}

func (g *astGuard) tableFunction(v any, sc *cteScope) *Rejection {
	fn, rej := astAsObj(v, "table function")
	if rej != nil {
		return rej
	}
	if astStr(fn, "class") != "FUNCTION" {
		return unknownPart("table function of class " + astStr(fn, "class"))
	}
	if rej := checkFields(fn, "table function", "class", "type", "alias", "function_name", "schema", "catalog", "children", "order_bys", "is_operator"); rej != nil {
		return rej
	}
	name := astStr(fn, "function_name")
	if astStr(fn, "schema") != "" || astStr(fn, "catalog") != "" {
		return &Rejection{
			Refused: "table function " + qualifiedName(fn) + "()",
			Reason:  "Table functions are called without a catalog or schema prefix.",
			Hint:    tableFunctionHint,
		}
	}
	if !allowedTableFunctions[asciiLower(name)] {
		return &Rejection{
			Refused: "table function " + name + "()",
			Reason:  "It is not allowed in FROM: files, other databases and metadata cannot be read.",
			Hint:    tableFunctionHint + " " + g.relationsHint(),
		}
	}
	if rej := g.orderModifier(fn["order_bys"], sc); rej != nil {
		return rej
	}
	return g.exprList(fn["children"], sc)
}

const tableFunctionHint = "In FROM you may use the tables, subqueries, VALUES and range(), generate_series(), unnest(), json_each(), json_tree()."

func qualifiedName(fn astObj) string {
	parts := []string{}
	for _, k := range []string{"catalog", "schema"} {
		if s := astStr(fn, k); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(append(parts, astStr(fn, "function_name")), ".")
}

func (g *astGuard) exprList(v any, sc *cteScope) *Rejection {
	list, rej := astAsList(v, "expression list")
	if rej != nil {
		return rej
	}
	for _, e := range list {
		if rej := g.expr(e, sc); rej != nil {
			return rej
		}
	}
	return nil
}

func (g *astGuard) functionAllowed(name string) bool {
	l := asciiLower(name)
	return allowedFunctions[l] || g.policy.Macros[l]
}

func (g *astGuard) functionRejection(name string) *Rejection {
	hint := "Use ordinary string, number, date/time, list, struct, map, JSON, regexp, aggregate and window functions"
	macros := make([]string, 0, len(g.policy.Macros))
	for m, ok := range g.policy.Macros {
		if ok {
			macros = append(macros, m+"()")
		}
	}
	sort.Strings(macros)
	if len(macros) > 0 {
		hint += ", and " + strings.Join(macros, ", ")
	}
	return &Rejection{
		Refused: "function " + name + "()",
		Reason:  "It is not on ctool query's list of allowed functions (functions that read settings, variables, the catalog, files or other databases, or have side effects are blocked).",
		Hint:    hint + ".",
	}
}

func (g *astGuard) expr(v any, sc *cteScope) *Rejection {
	if v == nil {
		return nil
	}
	e, rej := astAsObj(v, "expression")
	if rej != nil {
		return rej
	}
	base := []string{"class", "type", "alias"}
	switch class := astStr(e, "class"); class {
	case "CONSTANT":
		return checkFields(e, "constant", append(base, "value")...)
	case "COLUMN_REF":
		if rej := checkFields(e, "column", append(base, "column_names")...); rej != nil {
			return rej
		}
		return g.columnRef(e)
	case "POSITIONAL_REFERENCE":
		return checkFields(e, "positional reference", append(base, "index")...)
	case "FUNCTION":
		if rej := checkFields(e, "function call", append(base, "function_name", "schema", "catalog", "children", "filter", "order_bys", "distinct", "is_operator")...); rej != nil {
			return rej
		}
		return g.function(e, sc)
	case "WINDOW":
		if rej := checkFields(e, "window function", append(base, "function_name", "schema", "catalog", "children", "partitions", "orders",
			"start", "end", "start_expr", "end_expr", "offset_expr", "default_expr", "ignore_nulls", "filter_expr",
			"exclude_clause", "arg_orders", "distinct")...); rej != nil {
			return rej
		}
		name := astStr(e, "function_name")
		if astStr(e, "schema") != "" || astStr(e, "catalog") != "" {
			return qualifiedFunctionRejection(qualifiedName(e))
		}
		if !g.functionAllowed(name) {
			return g.functionRejection(name)
		}
		for _, k := range []string{"children", "partitions"} {
			if rej := g.exprList(e[k], sc); rej != nil {
				return rej
			}
		}
		for _, k := range []string{"orders", "arg_orders"} {
			if rej := g.orders(e[k], sc); rej != nil {
				return rej
			}
		}
		for _, k := range []string{"start_expr", "end_expr", "offset_expr", "default_expr", "filter_expr"} {
			if rej := g.expr(e[k], sc); rej != nil {
				return rej
			}
		}
		return nil
	case "OPERATOR":
		if rej := checkFields(e, "operator", append(base, "children")...); rej != nil {
			return rej
		}
		if !allowedOperators[astStr(e, "type")] {
			return unknownPart("operator " + astStr(e, "type"))
		}
		return g.exprList(e["children"], sc)
	case "COMPARISON":
		if rej := checkFields(e, "comparison", append(base, "left", "right")...); rej != nil {
			return rej
		}
		if !strings.HasPrefix(astStr(e, "type"), "COMPARE_") {
			return unknownPart("comparison " + astStr(e, "type"))
		}
		if rej := g.expr(e["left"], sc); rej != nil {
			return rej
		}
		return g.expr(e["right"], sc)
	case "CONJUNCTION":
		if rej := checkFields(e, "AND/OR", append(base, "children")...); rej != nil {
			return rej
		}
		return g.exprList(e["children"], sc)
	case "BETWEEN":
		if rej := checkFields(e, "BETWEEN", append(base, "input", "lower", "upper")...); rej != nil {
			return rej
		}
		for _, k := range []string{"input", "lower", "upper"} {
			if rej := g.expr(e[k], sc); rej != nil {
				return rej
			}
		}
		return nil
	case "CASE":
		if rej := checkFields(e, "CASE", append(base, "case_checks", "else_expr")...); rej != nil {
			return rej
		}
		checks, rej := astAsList(e["case_checks"], "CASE")
		if rej != nil {
			return rej
		}
		for _, c := range checks {
			check, rej := astAsObj(c, "WHEN")
			if rej != nil {
				return rej
			}
			if rej := checkFields(check, "WHEN", "when_expr", "then_expr"); rej != nil {
				return rej
			}
			if rej := g.expr(check["when_expr"], sc); rej != nil {
				return rej
			}
			if rej := g.expr(check["then_expr"], sc); rej != nil {
				return rej
			}
		}
		return g.expr(e["else_expr"], sc)
	case "CAST":
		if rej := checkFields(e, "CAST", append(base, "child", "cast_type", "try_cast")...); rej != nil {
			return rej
		}
		if rej := checkCastType(e["cast_type"]); rej != nil {
			return rej
		}
		return g.expr(e["child"], sc)
	case "COLLATE":
		if rej := checkFields(e, "COLLATE", append(base, "child", "collation")...); rej != nil {
			return rej
		}
		return g.expr(e["child"], sc)
	case "LAMBDA":
		if rej := checkFields(e, "lambda", append(base, "lhs", "expr")...); rej != nil {
			return rej
		}
		if rej := g.expr(e["lhs"], sc); rej != nil {
			return rej
		}
		return g.expr(e["expr"], sc)
	case "SUBQUERY":
		if rej := checkFields(e, "subquery", append(base, "subquery_type", "subquery", "child", "comparison_type")...); rej != nil {
			return rej
		}
		if rej := g.expr(e["child"], sc); rej != nil {
			return rej
		}
		return g.statement(e["subquery"], sc)
	case "STAR":
		if rej := checkFields(e, "*", append(base, "relation_name", "exclude_list", "replace_list", "columns", "expr", "qualified_exclude_list", "rename_list")...); rej != nil {
			return rej
		}
		repl, rej := astAsList(e["replace_list"], "* REPLACE")
		if rej != nil {
			return rej
		}
		for _, r := range repl {
			kv, rej := astAsObj(r, "* REPLACE")
			if rej != nil {
				return rej
			}
			if rej := g.expr(kv["value"], sc); rej != nil {
				return rej
			}
		}
		return g.expr(e["expr"], sc)
	case "PARAMETER":
		return parameterRejection(astStr(e, "identifier"))
	case "":
		return unknownPart("expression")
	default:
		return unknownPart("expression " + class)
	}
}

func qualifiedFunctionRejection(name string) *Rejection {
	return &Rejection{
		Refused: "qualified function call " + name + "()",
		Reason:  "Functions are called by their plain name, without a catalog or schema prefix.",
		Hint:    "Write lower(description) rather than description.lower() or main.lower(description).",
	}
}

func (g *astGuard) function(e astObj, sc *cteScope) *Rejection {
	name := astStr(e, "function_name")
	l := asciiLower(name)
	if astStr(e, "catalog") != "" {
		return qualifiedFunctionRejection(qualifiedName(e))
	}
	// DuckDB's grammar itself names some built-ins as main.<name> ([1,2] is main.list_value(1, 2));
	// those few keep their schema, any other qualified call is refused.
	if s := astStr(e, "schema"); s != "" && !(asciiLower(s) == "main" && parserQualifiedFunctions[l]) {
		return qualifiedFunctionRejection(qualifiedName(e))
	}
	if !g.functionAllowed(name) {
		return g.functionRejection(name)
	}
	children, rej := astAsList(e["children"], "function arguments")
	if rej != nil {
		return rej
	}
	// list_aggr(list, 'name') calls the aggregate named by a string; that name must be allowed too.
	if aggregateByName[l] && len(children) >= 2 {
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
			return g.functionRejection(agg)
		}
	}
	if rej := g.exprList(children, sc); rej != nil {
		return rej
	}
	if rej := g.expr(e["filter"], sc); rej != nil {
		return rej
	}
	return g.orderModifier(e["order_bys"], sc)
}

// columnRef refuses the SQL keywords (user, current_schema, ...) that DuckDB's binder turns into a
// function call when no column has that name.
func (g *astGuard) columnRef(e astObj) *Rejection {
	names, rej := astAsList(e["column_names"], "column name")
	if rej != nil {
		return rej
	}
	if len(names) == 0 {
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

// checkCastType allows DuckDB's built-in types, nested or not; a named type (CREATE TYPE) would be looked
// up in the catalog and is refused.
func checkCastType(v any) *Rejection {
	t, ok := v.(astObj)
	if !ok {
		return unknownPart("type")
	}
	id := astStr(t, "id")
	if rej := checkFields(t, "type", "id", "type_info"); rej != nil {
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
	switch kind := astStr(info, "type"); kind {
	case "DECIMAL_TYPE_INFO":
		return checkFields(info, "DECIMAL type", "type", "alias", "width", "scale")
	case "LIST_TYPE_INFO", "ARRAY_TYPE_INFO":
		if rej := checkFields(info, "LIST type", "type", "alias", "child_type", "size"); rej != nil {
			return rej
		}
		return checkCastType(info["child_type"])
	case "STRUCT_TYPE_INFO":
		if rej := checkFields(info, "STRUCT type", "type", "alias", "child_types"); rej != nil {
			return rej
		}
		kids, rej := astAsList(info["child_types"], "STRUCT type")
		if rej != nil {
			return rej
		}
		for _, k := range kids {
			kv, rej := astAsObj(k, "STRUCT field")
			if rej != nil {
				return rej
			}
			if rej := checkCastType(kv["second"]); rej != nil {
				return rej
			}
		}
		return nil
	case "GENERIC_TYPE_INFO":
		return checkFields(info, "type", "type", "alias")
	case "UNBOUND_TYPE_INFO":
		if rej := checkFields(info, "type", "type", "alias", "name", "catalog", "schema", "user_type_modifiers"); rej != nil {
			return rej
		}
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
		return nil
	default:
		return unknownPart("type " + id)
	}
}
