package query

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/schema"
)

// The probes of an empty result: they run only when a query returned no rows, on the same locked-down
// connection and within the same context, and read only public relations named in schema/.

// explainEmpty says why a query found no rows: each condition on a public column that matches no row
// by itself, and what that column holds instead. stmt is the guard's reading of sqlText, or nil to
// parse it here. It returns "" when it finds nothing to say, or when the context ends first.
func explainEmpty(ctx context.Context, conn *guard.Conn, cache *buildHints, stmt map[string]any, sqlText string, policy guard.Policy) string {
	if stmt == nil {
		var err error
		if stmt, err = guard.Parse(ctx, conn, sqlText); err != nil { // the guard's own parse: the same reading it accepted
			return ""
		}
	}
	conds := collectConditions(stmt)
	found := matchAlone(ctx, conn, cache, conds)
	var hints []string
	for i, c := range conds {
		if ctx.Err() != nil {
			return ""
		}
		if h := probe(ctx, conn, cache, c, found[i]); h != "" {
			hints = append(hints, h)
		}
	}
	if ctx.Err() == nil {
		hints = append(hints, conjunctHints(ctx, conn, cache, stmt, policy, len(hints) > 0)...)
	}
	return strings.Join(hints, "; ")
}

// matchAlone tells whether each condition matches a row by itself: from the build's cache, and the
// rest in one statement (a condition is a column compared with constants: its answer depends on the
// build's data alone). An entry is nil when DuckDB could not answer it with the others (an error in
// one of them): probe then asks it alone.
func matchAlone(ctx context.Context, conn *guard.Conn, cache *buildHints, conds []condition) []*bool {
	found := make([]*bool, len(conds))
	keys := make([]string, len(conds))
	var exists []guard.SQL
	var args []any
	var asked []int
	for i, c := range conds {
		where, a := c.where()
		q := guard.Format("EXISTS (SELECT 1 FROM %s WHERE %s)", guard.MustIdent(c.col.relation), where)
		key, cacheable := answerKey(q, a)
		if cacheable {
			keys[i] = key
		}
		if row, ok := cache.answer(keys[i]); cacheable && ok && len(row) == 1 {
			yes := row[0].String == "true"
			found[i] = &yes
			continue
		}
		exists = append(exists, q)
		args = append(args, a...)
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return found
	}
	answers := make([]bool, len(asked))
	ptrs := make([]any, len(asked))
	for i := range answers {
		ptrs[i] = &answers[i]
	}
	if err := conn.QueryRow(ctx, guard.Format("SELECT %s", guard.Join(exists, ", ")), args...).Scan(ptrs...); err != nil {
		return found
	}
	for j, i := range asked {
		found[i] = &answers[j]
		if keys[i] != "" {
			cache.keep(keys[i], []sql.NullString{{String: strconv.FormatBool(answers[j]), Valid: true}})
		}
	}
	return found
}

// probe runs one condition alone (known, when not nil, says whether it matches a row); when it matches
// no row it returns the hint for it.
func probe(ctx context.Context, conn *guard.Conn, cache *buildHints, c condition, known *bool) string {
	rel := guard.MustIdent(c.col.relation)
	if known == nil {
		where, args := c.where()
		var matched bool
		if err := conn.QueryRow(ctx, guard.Format("SELECT EXISTS (SELECT 1 FROM %s WHERE %s)", rel, where), args...).Scan(&matched); err != nil {
			return ""
		}
		known = &matched
	}
	if *known {
		return ""
	}
	lead := clipText(c.text, 160) + " matches no row of " + c.col.relation
	if c.col.json && c.op != "json" {
		col := guard.MustIdent(c.col.name)
		q := guard.Format("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY length(%s) LIMIT 1", col, rel, col, col)
		example, err := cache.row(ctx, conn, q, 1)
		if err != nil || !example[0].Valid {
			return lead
		}
		h := lead + ": " + c.col.name + " holds JSON such as " + clipText(example[0].String, 100) + "; compare a field, e.g. json_extract_string(" + c.col.name + ", '$.<field>')"
		if c.col.typed != "" {
			h += ", or use the typed columns of " + c.col.typed
		}
		return h
	}
	values, complete := vocabulary(ctx, conn, cache, c)
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
	return h + occurrences(ctx, conn, cache, c)
}

// vocabulary reads the distinct values of the condition's column: all of them when there are few
// (complete), otherwise the candidates closest to its first literal.
func vocabulary(ctx context.Context, conn *guard.Conn, cache *buildHints, c condition) ([]string, bool) {
	col, rel := guard.MustIdent(c.col.name), guard.MustIdent(c.col.relation)
	src := guard.Format("SELECT CAST(%s AS VARCHAR) AS v FROM %s", col, rel)
	var args []any
	switch {
	case c.col.list:
		src = guard.Format("SELECT CAST(unnest(%s) AS VARCHAR) AS v FROM %s", col, rel)
	case c.op == "json":
		src = guard.Format("SELECT json_extract_string(%s, ?) AS v FROM %s", col, rel)
		args = []any{c.path}
	}
	const few = 200
	values, err := cache.values(ctx, conn, guard.Format("SELECT DISTINCT v FROM (%s) WHERE v IS NOT NULL ORDER BY v LIMIT %s", src, guard.Int(few+1)), args...)
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
	many, err := stringsOf(ctx, conn, guard.Format("SELECT v FROM (SELECT DISTINCT v FROM (%s) WHERE v IS NOT NULL) "+
		"ORDER BY contains(lower(v), ?) DESC, v LIMIT %s", src, guard.Int(maxCandidates)), append(args, lit)...)
	if err != nil {
		return values[:few], false
	}
	return nearByCharacters(lit, many, 50), false
}

// stringsOf reads the one text column of q's rows.
func stringsOf(ctx context.Context, conn *guard.Conn, q guard.SQL, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, q, args...)
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
