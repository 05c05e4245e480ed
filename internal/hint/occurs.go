package hint

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// Occurrences: a label value that does not exist rules out the label, not the thing: "category =
// 'bar'" finds no bar category, while stores named "BAR ..." are filed as restaurants. The hint says
// where the word (or another word for it) occurs in the dataset's text columns, or which of them to
// search.
const Occurrences Kind = "occurrences"

// maxOccurrences is how many text columns a hint names where a word occurs.
const maxOccurrences = 3

var occurrences = &analyzer{scope: eachCondition, run: func(p *pass, i int) []Hint {
	c := p.conds[i]
	if !c.col.label || c.col.dataset == nil || !p.unmatched(i) {
		return nil
	}
	if text := occurs(p.ctx, p.conn, p.cache, c); text != "" {
		return []Hint{{Kind: Occurrences, Condition: c.text, Text: text}}
	}
	return nil
}}

// occurs says where a label condition's words occur in its dataset's text columns ("" when DuckDB
// could not count them).
func occurs(ctx context.Context, conn *database.Conn, cache *Cache, c condition) string {
	d := c.col.dataset
	var cols []string
	for _, col := range d.Columns {
		if col.Kind == schema.Text && !col.Label && !col.Hidden && !strings.HasSuffix(col.Name, "_id") && !strings.Contains(col.Name, "url") {
			cols = append(cols, col.Name)
		}
	}
	words := searchWords(c)
	if len(cols) == 0 || len(words) == 0 {
		return ""
	}
	var n []int64
	if t := cache.textsOf(ctx, conn, d.Table, cols); t != nil {
		n = t.count(words)
	} else if n = countOccurrences(ctx, conn, d.Table, cols, words); n == nil {
		return ""
	}
	type hit struct {
		col string
		n   int64
	}
	var hits []hit
	for i, col := range cols {
		if n[i] > 0 {
			hits = append(hits, hit{col, n[i]})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].n > hits[j].n })
	subject := schema.QuoteString(c.literals[0])
	if len(words) > 1 {
		subject += " (or " + quoteList(words[1:min(len(words), 4)]) + ")"
	}
	if len(hits) == 0 {
		return fmt.Sprintf("%s occurs in no text of %s either: search %s for the kind of thing with LIKE '%%word%%'",
			subject, d.Name, strings.Join(cols[:min(3, len(cols))], ", "))
	}
	var parts []string
	for _, h := range hits[:min(maxOccurrences, len(hits))] {
		parts = append(parts, fmt.Sprintf("%s of %d %s", h.col, h.n, rowNoun(d, h.n)))
	}
	return fmt.Sprintf("%s occurs in %s (search there with LIKE)", subject, strings.Join(parts, ", "))
}

// countOccurrences is how many rows of table contain any of words in each of cols, counted by DuckDB:
// for text too large for the build's cache; nil on an error.
func countOccurrences(ctx context.Context, conn *database.Conn, table string, cols, words []string) []int64 {
	var counts []guard.SQL
	var args []any
	for _, col := range cols {
		c := guard.MustIdent(col)
		match := make([]guard.SQL, len(words))
		for i, w := range words {
			match[i] = guard.Format("contains(lower(%s), ?)", c)
			args = append(args, w)
		}
		counts = append(counts, guard.Format("count(*) FILTER (WHERE %s)", guard.Join(match, " OR ")))
	}
	n := make([]int64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range n {
		ptrs[i] = &n[i]
	}
	if err := conn.QueryRow(ctx, guard.Format("SELECT %s FROM %s", guard.Join(counts, ", "), guard.MustIdent(table)), args...).Scan(ptrs...); err != nil {
		return nil
	}
	return n
}

// searchWords are the folded words to look for: the condition's literals and their other words
// (schema.LabelWords), each also in full width when it is ASCII.
func searchWords(c condition) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		w = schema.FoldNFKC(w)
		if w != "" && !seen[w] && len(out) < 12 {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, lit := range c.literals[:min(3, len(c.literals))] {
		lit = c.searched(lit)
		add(lit)
		for _, group := range schema.LabelWords {
			for _, w := range group {
				if schema.SameLabel(w, lit) {
					for _, o := range group {
						add(o)
					}
					break
				}
			}
		}
	}
	// Full-width forms of ASCII words, as Japanese text often writes them (ＢＡＲ).
	for _, w := range append([]string{}, out...) {
		if fw := fullWidth(w); fw != w {
			if !seen[fw] && len(out) < 16 {
				seen[fw] = true
				out = append(out, fw)
			}
		}
	}
	return out
}

func fullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7f {
			return r - '!' + '！'
		}
		return r
	}, s)
}

// rowNoun is what n rows of d are called.
func rowNoun(d *schema.Dataset, n int64) string {
	if n == 1 {
		return strings.TrimSuffix(d.Name, "s")
	}
	return d.Name
}
