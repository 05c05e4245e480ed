package validation

// A column renamed in the header is a missing column and an unknown one: the missing one's problem
// names the unknown field it probably became.

import (
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
	"golang.org/x/text/width"
)

// renames pairs missing columns (indexes in d.Columns) with the unknown fields of header (indexes)
// they were probably renamed to: the same name once case, width, '_', '-', spaces and a plural s are
// folded away, or within two edits (one for a name of up to three letters). Each field pairs with one
// column at most, the likeliest pair first: a folded match, then the fewest edits, then the column
// and the field that come first.
func renames(d *schema.Dataset, header []string, missing, unknown []int) map[int]int {
	type pair struct{ column, field, score int }
	var pairs []pair
	for _, c := range missing {
		for _, f := range unknown {
			if score, ok := renameScore(d.Columns[c].Name, header[f]); ok {
				pairs = append(pairs, pair{c, f, score})
			}
		}
	}
	found := map[int]int{}
	usedField := map[int]bool{}
	for score := 0; score <= maxRenameEdits+1; score++ {
		for _, p := range pairs {
			if p.score != score || usedField[p.field] {
				continue
			}
			if _, done := found[p.column]; done {
				continue
			}
			found[p.column], usedField[p.field] = p.field, true
		}
	}
	return found
}

// maxRenameEdits is the most edits between a column's name and a field that still reads as a rename.
const maxRenameEdits = 2

// renameScore says whether field reads as column renamed: 0 for the same folded name, else 1 plus the
// edits between the two names (case aside).
func renameScore(column, field string) (int, bool) {
	if len(field) > 4*len(column)+16 {
		return 0, false // far longer: no rename, and no edit distance to compute
	}
	if foldName(column) == foldName(field) {
		return 0, true
	}
	a, b := []rune(strings.ToLower(column)), []rune(strings.ToLower(field))
	limit := min(maxRenameEdits, min(len(a), len(b))/2)
	if n := editDistance(a, b, limit); n <= limit {
		return 1 + n, true
	}
	return 0, false
}

// foldName is a name without case, width, separators ('_', '-', spaces) and a plural s at its end.
func foldName(s string) string {
	s = strings.ToLower(width.Fold.String(s))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ', '\t':
			return -1
		}
		return r
	}, s)
	if strings.HasSuffix(s, "s") && utf8.RuneCountInString(s) > 1 {
		s = s[:len(s)-1]
	}
	return s
}

// editDistance is the Levenshtein distance between a and b, or limit+1 once it is known to be more.
func editDistance(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
