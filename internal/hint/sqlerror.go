package hint

import (
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// The hints of DuckDB's errors: a parser error's likely typo, a column the query's relation lacks.

// ParseError is a query DuckDB's parser could not read: the agent has to fix it, nothing was refused.
func ParseError(r *guard.Rejection) *fault.Error {
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
	return &fault.Error{Kind: fault.KindSQL, Message: "Parser Error: " + strings.TrimSuffix(r.Parse, "."), Hint: hint, Err: r}
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

// ExplainError adds a hint to DuckDB's binder error for a column the query's relation does not have
// but another public relation does (start_date is in events_typed, not events).
func ExplainError(err error, sqlText string) error {
	var ce *fault.Error
	if !errors.As(err, &ce) || ce.Kind != fault.KindSQL || ce.Hint != "" {
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
		return &fault.Error{Kind: ce.Kind, Message: ce.Message, Hint: h, Err: ce.Err}
	}
	return err
}

// columnHint names the public relations that have a column of that name, or one that starts with it
// (price → price_yen, the shortest such), with the query rewritten to read the first of them when that is plain.
func columnHint(name, sqlText string) string {
	lower := strings.ToLower(name)
	var exact, prefix []string
	var prefixCol string
	for _, rel := range relationOrder() {
		cols := publicColumns()[strings.ToLower(rel)]
		keys := make([]string, 0, len(cols))
		for k := range cols {
			keys = append(keys, k)
		}
		// The shortest first: price names price_yen before price_max_yen.
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			c := cols[k]
			switch {
			case k == lower:
				exact = append(exact, rel)
			case strings.HasPrefix(k, lower+"_") && (prefixCol == "" || prefixCol == c.name):
				prefixCol = c.name
				prefix = append(prefix, rel)
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

// relationOrder lists the public relations but the file-name aliases: each dataset's views first
// (where derived columns live), then its table, so the hint names the relation an agent should read.
func relationOrder() []string {
	var out []string
	for _, d := range schema.Public() {
		var table string
		for _, r := range schema.Relations() {
			switch {
			case r.Dataset != d:
			case r.Kind == schema.ViewRelation:
				out = append(out, r.Name)
			case r.Kind == schema.TableRelation:
				table = r.Name
			}
		}
		out = append(out, table)
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
	v, ok := schema.RelationNamed(view)
	r, found := schema.RelationNamed(relation)
	return ok && found && v.Extends() && r.Dataset == v.Dataset && r.Kind != schema.ViewRelation
}
