package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/schema"
)

// The probes of an empty result: they run only when a query returned no rows, on the same locked-down
// connection and within the same context, and read only public relations named in schema/.

// maxProbed is the most conditions of one query that are probed.
const maxProbed = 8

// probeColumn is what schema/ says of one column of one public relation.
type probeColumn struct {
	name     string
	json     bool // JSON text: the hint shows an example rather than close values
	list     bool // VARCHAR[]
	relation string
	typed    string // the dataset's first typed view, for JSON columns
	wrap     string // lower, upper or trim around the column, as the query wrote it
	label    bool   // a label column (schema: Label): its words may be found in the text columns instead
	typ      string // the view column's SQL type (DATE, TIMESTAMP, ...); "" for the table's text
	dataset  *schema.Dataset
}

// expr is the column in SQL, inside the query's lower(), upper() or trim().
func (c probeColumn) expr() string {
	if c.wrap != "" {
		return c.wrap + "(" + quoteIdent(c.name) + ")"
	}
	return quoteIdent(c.name)
}

// shown is the column as the hint names it.
func (c probeColumn) shown() string {
	if c.wrap != "" {
		return c.wrap + "(" + c.name + ")"
	}
	return c.name
}

// wrappers are the functions of one column a condition may put around it.
var wrappers = map[string]bool{"lower": true, "upper": true, "trim": true, "lcase": true, "ucase": true}

var (
	relationsOnce sync.Once
	relationCols  map[string]map[string]probeColumn // lower-cased relation → lower-cased column
	relationNames map[string]string                 // lower-cased relation → its name
)

// publicColumns maps every public relation to its columns, as the migrations create them.
func publicColumns() (map[string]map[string]probeColumn, map[string]string) {
	relationsOnce.Do(func() {
		relationCols = map[string]map[string]probeColumn{}
		relationNames = map[string]string{}
		for _, d := range schema.Public() {
			typed := ""
			for _, v := range d.Views {
				if v.Extends != "" {
					typed = v.Name
					break
				}
			}
			base := map[string]probeColumn{}
			for _, c := range d.Columns {
				if c.Hidden {
					continue // never shown in results, so never in a hint either
				}
				base[strings.ToLower(c.Name)] = probeColumn{name: c.Name, json: c.Kind == schema.JSON, typed: typed, label: c.Label, dataset: d}
			}
			add := func(rel string, cols map[string]probeColumn) {
				m := map[string]probeColumn{}
				for k, c := range cols {
					c.relation = rel
					m[k] = c
				}
				relationCols[strings.ToLower(rel)] = m
				relationNames[strings.ToLower(rel)] = rel
			}
			add(d.Table, base)
			for _, a := range d.Aliases {
				add(a, base)
			}
			for _, v := range d.Views {
				cols := map[string]probeColumn{}
				if v.Extends != "" {
					for k, c := range base {
						cols[k] = c
					}
				}
				for _, c := range v.Columns {
					cols[strings.ToLower(c.Name)] = probeColumn{name: c.Name, list: strings.HasSuffix(c.Type, "[]"), label: c.Label, typ: c.Type, dataset: d}
				}
				add(v.Name, cols)
			}
		}
	})
	return relationCols, relationNames
}

// condition is one comparison of a public column with constants, as the query wrote it.
type condition struct {
	col      probeColumn
	op       string // =, IN, LIKE, ILIKE, GLOB, list_contains, list_has_any, json
	literals []string
	path     string // json: the JSON path
	text     string // the condition in SQL, for the hint
}

// where is the SQL that tests the condition alone; its arguments are the literals.
func (c condition) where() (string, []any) {
	col := c.col.expr()
	args := make([]any, 0, len(c.literals)+1)
	marks := make([]string, len(c.literals))
	for i, l := range c.literals {
		marks[i] = "?"
		args = append(args, l)
	}
	switch c.op {
	case "IN":
		return col + " IN (" + strings.Join(marks, ", ") + ")", args
	case "LIKE", "ILIKE", "GLOB":
		return col + " " + c.op + " ?", args
	case "list_contains":
		return "list_contains(" + col + ", ?)", args
	case "contains":
		return "contains(" + col + ", ?)", args
	case "list_has_any":
		return "list_has_any(" + col + ", [" + strings.Join(marks, ", ") + "])", args
	case "json":
		return "json_extract_string(" + col + ", ?) = ?", append([]any{c.path}, args...)
	}
	return col + " = ?", args
}

// explainEmpty says why a query found no rows: each condition on a public column that matches no row
// by itself, and what that column holds instead. It returns "" when it finds nothing to say, or when
// the context ends first.
func explainEmpty(ctx context.Context, conn *sql.Conn, sqlText string) string {
	stmt, err := guard.Parse(ctx, conn, sqlText) // the guard's own parse: the same reading it accepted
	if err != nil {
		return ""
	}
	conds := collectConditions(stmt)
	var hints []string
	for _, c := range conds {
		if ctx.Err() != nil {
			return ""
		}
		if h := probe(ctx, conn, c); h != "" {
			hints = append(hints, h)
		}
	}
	if ctx.Err() == nil {
		hints = append(hints, conjunctHints(ctx, conn, stmt, len(hints) > 0)...)
	}
	return strings.Join(hints, "; ")
}

// collectConditions finds the conditions of every SELECT in the statement, each resolved to a public
// relation's column. CTE names shadow relations, so a table named like a CTE is never probed.
func collectConditions(stmt any) []condition {
	ctes := map[string]bool{}
	var selects []map[string]any
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if m, ok := x["cte_map"].(map[string]any); ok {
				if entries, ok := m["map"].([]any); ok {
					for _, e := range entries {
						if em, ok := e.(map[string]any); ok {
							if k, ok := em["key"].(string); ok {
								ctes[strings.ToLower(k)] = true
							}
						}
					}
				}
			}
			if x["type"] == "SELECT_NODE" {
				selects = append(selects, x)
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
	visit(stmt)
	var out []condition
	seen := map[string]bool{}
	for _, s := range selects {
		scope := fromScope(s["from_table"], ctes)
		for _, c := range conditionsOf(s["where_clause"], scope) {
			if !seen[c.text] && len(out) < maxProbed {
				seen[c.text] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// scopeEntry is one public relation of a FROM clause.
type scopeEntry struct {
	name  string // as the query may qualify it: the alias, or the relation's name
	cols  map[string]probeColumn
	table string
}

func fromScope(from any, ctes map[string]bool) []scopeEntry {
	cols, _ := publicColumns()
	var out []scopeEntry
	var visit func(v any)
	visit = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		switch m["type"] {
		case "JOIN":
			visit(m["left"])
			visit(m["right"])
		case "BASE_TABLE":
			name, _ := m["table_name"].(string)
			schemaName, _ := m["schema_name"].(string)
			catalog, _ := m["catalog_name"].(string)
			if name == "" || ctes[strings.ToLower(name)] || (schemaName != "" && schemaName != "main") || catalog != "" {
				return
			}
			c, ok := cols[strings.ToLower(name)]
			if !ok {
				return
			}
			alias, _ := m["alias"].(string)
			if alias == "" {
				alias = name
			}
			out = append(out, scopeEntry{name: alias, cols: c, table: name})
		}
	}
	visit(from)
	return out
}

// resolve finds the public column a COLUMN_REF names in the scope.
func resolve(ref map[string]any, scope []scopeEntry) (probeColumn, bool) {
	if fn, _ := ref["function_name"].(string); ref["type"] == "FUNCTION" && wrappers[strings.ToLower(fn)] {
		children, _ := ref["children"].([]any)
		if len(children) != 1 {
			return probeColumn{}, false
		}
		inner, _ := children[0].(map[string]any)
		c, ok := resolve(inner, scope)
		if !ok || c.wrap != "" || c.list || c.json {
			return probeColumn{}, false
		}
		c.wrap = strings.ToLower(fn)
		return c, true
	}
	if ref["type"] != "COLUMN_REF" {
		return probeColumn{}, false
	}
	parts, _ := ref["column_names"].([]any)
	var qual, name string
	switch len(parts) {
	case 1:
		name, _ = parts[0].(string)
	case 2:
		qual, _ = parts[0].(string)
		name, _ = parts[1].(string)
	default:
		return probeColumn{}, false
	}
	for _, e := range scope {
		if qual != "" && !strings.EqualFold(qual, e.name) {
			continue
		}
		if c, ok := e.cols[strings.ToLower(name)]; ok {
			c.relation = e.table
			return c, true
		}
	}
	return probeColumn{}, false
}

// constant returns a VARCHAR constant's text.
func constant(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "VALUE_CONSTANT" {
		return "", false
	}
	val, _ := m["value"].(map[string]any)
	typ, _ := val["type"].(map[string]any)
	s, ok := val["value"].(string)
	if !ok || typ["id"] != "VARCHAR" || val["is_null"] == true {
		return "", false
	}
	return s, true
}

var likeOps = map[string]string{"~~": "LIKE", "~~*": "ILIKE", "~~~": "GLOB", "like": "LIKE", "ilike": "ILIKE", "glob": "GLOB"}

// conditionsOf walks AND and OR and returns the conditions it recognises; anything else is skipped.
func conditionsOf(v any, scope []scopeEntry) []condition {
	m, ok := v.(map[string]any)
	if !ok || len(scope) == 0 {
		return nil
	}
	children, _ := m["children"].([]any)
	switch m["type"] {
	case "CONJUNCTION_AND", "CONJUNCTION_OR":
		var out []condition
		for _, c := range children {
			out = append(out, conditionsOf(c, scope)...)
		}
		return out
	case "COMPARE_EQUAL":
		l, r := m["left"], m["right"]
		if _, ok := constant(l); ok {
			l, r = r, l
		}
		lit, ok := constant(r)
		if !ok {
			return nil
		}
		lm, _ := l.(map[string]any)
		if col, ok := resolve(lm, scope); ok && !col.list {
			return []condition{{col: col, op: "=", literals: []string{lit}, text: col.shown() + " = " + quoteSQL(lit)}}
		}
		if c, ok := jsonField(lm, scope); ok {
			c.literals = []string{lit}
			c.text += " = " + quoteSQL(lit)
			return []condition{c}
		}
	case "COMPARE_IN":
		if len(children) < 2 {
			return nil
		}
		lm, _ := children[0].(map[string]any)
		col, ok := resolve(lm, scope)
		if !ok || col.list {
			return nil
		}
		var lits []string
		for _, c := range children[1:] {
			lit, ok := constant(c)
			if !ok {
				return nil
			}
			lits = append(lits, lit)
		}
		return []condition{{col: col, op: "IN", literals: lits, text: col.shown() + " IN (" + quoteList(lits) + ")"}}
	case "FUNCTION":
		fn, _ := m["function_name"].(string)
		fn = strings.ToLower(fn)
		if len(children) != 2 {
			return nil
		}
		lm, _ := children[0].(map[string]any)
		col, ok := resolve(lm, scope)
		if !ok {
			return nil
		}
		if op, ok := likeOps[fn]; ok && !col.list {
			if lit, ok := constant(children[1]); ok {
				return []condition{{col: col, op: op, literals: []string{lit}, text: col.shown() + " " + op + " " + quoteSQL(lit)}}
			}
		}
		switch fn {
		case "contains":
			if lit, ok := constant(children[1]); ok && !col.list {
				return []condition{{col: col, op: "contains", literals: []string{lit}, text: "contains(" + col.shown() + ", " + quoteSQL(lit) + ")"}}
			}
		case "list_contains", "list_has", "array_contains", "array_has":
			if lit, ok := constant(children[1]); ok && col.list {
				return []condition{{col: col, op: "list_contains", literals: []string{lit}, text: fn + "(" + col.name + ", " + quoteSQL(lit) + ")"}}
			}
		case "list_has_any", "array_has_any":
			lv, _ := children[1].(map[string]any)
			items, _ := lv["children"].([]any)
			if fname, _ := lv["function_name"].(string); fname != "list_value" || !col.list {
				return nil
			}
			var lits []string
			for _, it := range items {
				lit, ok := constant(it)
				if !ok {
					return nil
				}
				lits = append(lits, lit)
			}
			return []condition{{col: col, op: "list_has_any", literals: lits, text: fn + "(" + col.name + ", [" + quoteList(lits) + "])"}}
		}
	}
	return nil
}

// jsonField recognises json_extract_string(col, '$.path'), json_extract(col, path), col->>path.
func jsonField(m map[string]any, scope []scopeEntry) (condition, bool) {
	if m["type"] != "FUNCTION" {
		return condition{}, false
	}
	fn, _ := m["function_name"].(string)
	children, _ := m["children"].([]any)
	if len(children) != 2 {
		return condition{}, false
	}
	switch strings.ToLower(fn) {
	case "json_extract_string", "json_extract", "->>", "->", "json_value":
	default:
		return condition{}, false
	}
	lm, _ := children[0].(map[string]any)
	col, ok := resolve(lm, scope)
	if !ok || !col.json || col.wrap != "" {
		return condition{}, false
	}
	path, ok := constant(children[1])
	if !ok {
		return condition{}, false
	}
	return condition{col: col, op: "json", path: path, text: fn + "(" + col.name + ", " + quoteSQL(path) + ")"}, true
}

// probe runs one condition alone; when it matches no row it returns the hint for it.
func probe(ctx context.Context, conn *sql.Conn, c condition) string {
	rel := quoteIdent(c.col.relation)
	where, args := c.where()
	var any bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM "+rel+" WHERE "+where+")", args...).Scan(&any); err != nil || any {
		return ""
	}
	lead := clipText(c.text, 160) + " matches no row of " + c.col.relation
	if c.col.json && c.op != "json" {
		var example sql.NullString
		q := "SELECT " + quoteIdent(c.col.name) + " FROM " + rel + " WHERE " + quoteIdent(c.col.name) + " IS NOT NULL ORDER BY length(" + quoteIdent(c.col.name) + ") LIMIT 1"
		if conn.QueryRowContext(ctx, q).Scan(&example) != nil || !example.Valid {
			return lead
		}
		h := lead + ": " + c.col.name + " holds JSON such as " + clipText(example.String, 100) + "; compare a field, e.g. json_extract_string(" + c.col.name + ", '$.<field>')"
		if c.col.typed != "" {
			h += ", or use the typed columns of " + c.col.typed
		}
		return h
	}
	values, complete := vocabulary(ctx, conn, c)
	if values == nil {
		return lead
	}
	var close []string
	seen := map[string]bool{}
	for i, lit := range c.literals {
		if i == maxSuggestions*3 {
			break // a long IN list: its first literals are enough to suggest from
		}
		text := lit
		if c.op == "LIKE" || c.op == "ILIKE" || c.op == "GLOB" {
			text = likeText(lit, c.op == "GLOB")
		}
		for _, s := range suggest(text, values) {
			if !seen[s] && len(close) < maxSuggestions {
				seen[s] = true
				close = append(close, s)
			}
		}
	}
	subject := c.col.name
	if c.op == "json" {
		subject = "json_extract_string(" + c.col.name + ", " + quoteSQL(c.path) + ")"
	}
	var h string
	switch {
	case len(close) > 0:
		h = lead + "; closest values of " + subject + ": " + quoteList(close) + " (compare with the value as stored)" + lookAlikeNote(c, close)
	case complete && len(values) <= smallVocabulary && !longText(values):
		h = lead + "; " + subject + " holds only: " + quoteList(values)
	case longText(values):
		h = lead + "; " + subject + " is free text, e.g. " + quoteSQL(clipText(shortest(values), 60)) + "; try a shorter LIKE '%word%'"
	default:
		h = lead + "; nothing in " + subject + " is close to it, e.g. " + quoteList(values[:min(3, len(values))])
	}
	return h + occurrences(ctx, conn, c)
}

// vocabulary reads the distinct values of the condition's column: all of them when there are few
// (complete), otherwise the candidates closest to its first literal.
func vocabulary(ctx context.Context, conn *sql.Conn, c condition) ([]string, bool) {
	col, rel := quoteIdent(c.col.name), quoteIdent(c.col.relation)
	src := "SELECT CAST(" + col + " AS VARCHAR) AS v FROM " + rel
	var args []any
	switch {
	case c.col.list:
		src = "SELECT CAST(unnest(" + col + ") AS VARCHAR) AS v FROM " + rel
	case c.op == "json":
		src = "SELECT json_extract_string(" + col + ", ?) AS v FROM " + rel
		args = []any{c.path}
	}
	const few = 200
	values, err := strings1(ctx, conn, fmt.Sprintf("SELECT DISTINCT v FROM (%s) WHERE v IS NOT NULL ORDER BY v LIMIT %d", src, few+1), args...)
	if err != nil {
		return nil, false
	}
	if len(values) <= few {
		return values, true
	}
	lit := c.literals[0]
	if c.op == "LIKE" || c.op == "ILIKE" || c.op == "GLOB" {
		lit = likeText(lit, c.op == "GLOB")
	}
	lit = clipText(schema.Fold(lit), maxEditRunes)
	// Many values: read a bounded number, those containing the word first, and keep the candidates
	// sharing its characters once folded (DuckDB's levenshtein counts bytes, so it would rank a
	// Japanese near miss below unrelated ASCII).
	many, err := strings1(ctx, conn, fmt.Sprintf("SELECT v FROM (SELECT DISTINCT v FROM (%s) WHERE v IS NOT NULL) "+
		"ORDER BY contains(lower(v), ?) DESC, v LIMIT %d", src, maxCandidates), append(args, lit)...)
	if err != nil {
		return values[:few], false
	}
	return nearByCharacters(lit, many, 50), false
}

func strings1(ctx context.Context, conn *sql.Conn, q string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// longText reports whether values are sentences rather than names or codes.
func longText(values []string) bool {
	for _, v := range values {
		if utf8.RuneCountInString(v) > 80 {
			return true
		}
	}
	return false
}

func shortest(values []string) string {
	best := values[0]
	for _, v := range values[1:] {
		if len(v) < len(best) {
			best = v
		}
	}
	return best
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// parseError is a query DuckDB's parser could not read: the agent has to fix it, nothing was refused.
func parseError(r *guard.Rejection) *ctool.Error {
	hint := "Fix the SQL and send it again: one SELECT, e.g. SELECT store_name FROM stores WHERE category = 'cafe'."
	if m := nearToken.FindStringSubmatch(r.Parse); m != nil {
		word := strings.ToUpper(m[1])
		for _, kw := range sqlKeywords {
			if word != kw && editDistance(word, kw) <= 2 && len(word) >= 3 {
				hint = "Did you mean " + kw + " instead of " + m[1] + "? " + hint
				break
			}
		}
	}
	return &ctool.Error{Kind: ctool.KindSQL, Message: "Parser Error: " + strings.TrimSuffix(r.Parse, "."), Hint: hint, Err: r}
}

var (
	nearToken   = regexp.MustCompile(`at or near "([^"]{1,40})"`)
	sqlKeywords = []string{"SELECT", "FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "JOIN", "WITH", "HAVING", "UNION", "DISTINCT", "BETWEEN", "LIKE", "ILIKE"}
	// DuckDB's binder messages for a column it cannot find.
	unknownColumn = []*regexp.Regexp{
		regexp.MustCompile(`Referenced column "([^"]+)" not found`),
		regexp.MustCompile(`does not have a column named "([^"]+)"`),
	}
)

// explainError adds a hint to DuckDB's binder error for a column the query's relation does not have
// but another public relation does (start_date is in events_typed, not events).
func explainError(err error, sqlText string) error {
	var ce *ctool.Error
	if !errors.As(err, &ce) || ce.Kind != ctool.KindSQL || ce.Hint != "" {
		return err
	}
	var name string
	for _, re := range unknownColumn {
		if m := re.FindStringSubmatch(ce.Message); m != nil {
			name = m[1]
			break
		}
	}
	if name == "" {
		return err
	}
	if h := columnHint(name, sqlText); h != "" {
		return &ctool.Error{Kind: ce.Kind, Message: ce.Message, Hint: h, Err: ce.Err}
	}
	return err
}

// columnHint names the public relations that have a column of that name, or one that starts with it
// (price → price_yen), with the query rewritten to read the first of them when that is plain.
func columnHint(name, sqlText string) string {
	cols, names := publicColumns()
	lower := strings.ToLower(name)
	var exact, prefix []string
	var prefixCol string
	for _, rel := range relationOrder() {
		keys := make([]string, 0, len(cols[rel]))
		for k := range cols[rel] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := cols[rel][k]
			switch {
			case k == lower:
				exact = append(exact, names[rel])
			case strings.HasPrefix(k, lower+"_") && (prefixCol == "" || prefixCol == c.name):
				prefixCol = c.name
				prefix = append(prefix, names[rel])
			}
		}
	}
	rels, col := exact, name
	if len(rels) == 0 {
		rels, col = prefix, prefixCol
	}
	if len(rels) == 0 {
		return ""
	}
	h := col + " is a column of " + strings.Join(rels, ", ")
	if ex := rewriteFrom(sqlText, rels[0], col, name); ex != "" {
		h += ": " + ex
	}
	return h
}

// relationOrder lists the public relations: each dataset's views first (where derived columns live),
// then its table, so the hint names the relation an agent should read.
func relationOrder() []string {
	var out []string
	for _, d := range schema.Public() {
		for _, v := range d.Views {
			out = append(out, strings.ToLower(v.Name))
		}
		out = append(out, strings.ToLower(d.Table))
	}
	return out
}

var fromTable = regexp.MustCompile(`(?i)\bFROM\s+("?[A-Za-z_][A-Za-z0-9_]*"?|'[^']*')`)

// rewriteFrom shows the query reading rel instead of its one FROM relation, with the column renamed
// when the hint found it under another name. It gives up ("") on anything but a single FROM.
func rewriteFrom(sqlText, rel, col, asked string) string {
	from := fromTable.FindAllStringSubmatch(sqlText, -1)
	if len(from) != 1 || strings.Contains(strings.ToUpper(sqlText), " JOIN ") || !extends(rel, strings.Trim(from[0][1], `"'`)) {
		return ""
	}
	out := fromTable.ReplaceAllString(sqlText, "FROM "+rel)
	if col != asked {
		out = regexp.MustCompile(`\b`+regexp.QuoteMeta(asked)+`\b`).ReplaceAllString(out, col)
	}
	return clipText(out, 200)
}

// extends reports whether view is a typed view carrying every column of relation (a table or one of
// its file names): only then does reading the view instead keep the rest of the query valid.
func extends(view, relation string) bool {
	for _, d := range schema.Public() {
		for _, v := range d.Views {
			if strings.EqualFold(v.Name, view) && v.Extends != "" {
				for _, r := range append([]string{d.Table}, d.Aliases...) {
					if strings.EqualFold(r, relation) {
						return true
					}
				}
			}
		}
	}
	return false
}
