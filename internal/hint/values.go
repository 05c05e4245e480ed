package hint

import (
	"context"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// Values: what the column of a condition that matches no row holds instead: the values closest to
// what the query wrote (suggest.go), or all of them when they are few and the column is no free text
// (a label, a flag, a JSON field), or that it is free text. It never offers a name or a text unrelated
// to the words the query searched for.
const Values Kind = "values"

var heldValues = &analyzer{scope: eachCondition, run: func(p *pass, i int) []Hint {
	c := p.conds[i]
	if c.jsonText() || !p.unmatched(i) {
		return nil
	}
	n := p.nearValues(i)
	if n.values == nil {
		return nil
	}
	subject := c.col.name
	if c.op == "json" {
		subject = "json_extract_string(" + c.col.name + ", " + schema.QuoteString(c.path) + ")"
	}
	var text string
	switch {
	case len(n.close) > 0:
		text = "closest values of " + subject + ": " + quoteList(n.close) + " (compare with the value as stored)"
	case n.excluded:
		text = "no value of " + subject + " close to it matches the query's other conditions"
	case n.complete && len(n.values) <= smallVocabulary && !longText(n.values) && !c.col.freeText():
		text = subject + " holds only: " + quoteList(n.values)
	case longText(n.values):
		text = subject + " is free text; try a shorter LIKE '%word%'"
	default:
		text = "nothing in " + subject + " is close to it"
	}
	return []Hint{{Kind: Values, Condition: c.text, Text: text}}
}}

// nearValues are the values of a condition's column as the hints of one condition read them.
type nearValues struct {
	values   []string // the column's values, or the candidates closest to the literal when there are many
	complete bool     // values are all of them
	close    []string // the closest to what the query wrote, best first (suggest), that its other conditions let through
	excluded bool     // there were close values, and the query's other conditions let none through
}

// nearValues reads condition i's column and ranks its values against the condition's literals. A
// value that no row holding it together with the query's other AND parts has is left out: written in
// the condition's place, it would find nothing either.
func (p *pass) nearValues(i int) *nearValues {
	if n, ok := p.near[i]; ok {
		return n
	}
	c := p.conds[i]
	n := &nearValues{}
	n.values, n.complete = vocabulary(p.ctx, p.conn, p.cache, c)
	// More candidates than are named, so that one left out makes room for the next.
	const candidates = maxSuggestions * 3
	var ranked []string
	seen := map[string]bool{}
	for j, lit := range c.literals {
		if n.values == nil || j == candidates {
			break // a long IN list: its first literals are enough to suggest from
		}
		for _, s := range suggest(c.searched(lit), n.values, candidates) {
			if !seen[s] && len(ranked) < candidates {
				seen[s] = true
				ranked = append(ranked, s)
			}
		}
	}
	held, checked := map[string]bool(nil), false
	if others := p.otherParts(i); len(ranked) > 0 && len(others) > 0 && c.ref.Valid() {
		held, checked = p.counts().valuesUnder(c.ref, others)
		// When the other parts match no row together, they are what the other hints explain: the
		// close values stay, for the query that fixes them.
		checked = checked && held != nil
	}
	for _, s := range ranked {
		if len(n.close) == maxSuggestions {
			break
		}
		if !checked || held[s] {
			n.close = append(n.close, s)
		}
	}
	n.excluded = len(ranked) > 0 && len(n.close) == 0
	p.near[i] = n
	return n
}

// searched is the text a literal of the condition looks for: a LIKE or GLOB pattern's wildcards removed.
func (c condition) searched(lit string) string {
	if c.op == "LIKE" || c.op == "ILIKE" || c.op == "GLOB" {
		return likeText(lit, c.op == "GLOB")
	}
	return lit
}

// vocabulary reads the distinct values of the condition's column: all of them when there are few
// (complete), otherwise the candidates closest to its first literal.
func vocabulary(ctx context.Context, conn *database.Conn, cache *Cache, c condition) ([]string, bool) {
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
	values, err := cache.Values(ctx, conn, guard.Format("SELECT DISTINCT v FROM (%s) WHERE v IS NOT NULL ORDER BY v LIMIT %s", src, guard.Int(few+1)), args...)
	if err != nil {
		return nil, false
	}
	if len(values) <= few {
		return values, true
	}
	lit := clipText(schema.FoldNFKC(c.searched(c.literals[0])), maxEditRunes)
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
func stringsOf(ctx context.Context, conn *database.Conn, q guard.SQL, args ...any) ([]string, error) {
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
