package hint

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
)

// maxSuggestions is how many close values a hint names for one condition.
const maxSuggestions = 3

// maxEditRunes is the longest word compared by edit distance.
const maxEditRunes = 64

// smallVocabulary is the most distinct values a hint lists whole when none is close to the literal.
const smallVocabulary = 12

// suggest ranks the values a column holds by how close they are to what a query compared it with, and
// returns the closest n. literal is the query's text with LIKE or GLOB wildcards already removed.
// Ranking, best first: another word for the same label (schema.LabelWords); equal once both are
// folded (NFKC, case, width, surrounding space); one containing the other, folded; a small edit
// distance. A value equal to the literal as written is never suggested: the condition did not fail
// for want of it.
func suggest(literal string, values []string, n int) []string {
	fl := schema.FoldNFKC(literal)
	if fl == "" {
		return nil
	}
	// Edit distance costs the product of the lengths: only short words are compared that way, so a
	// huge literal or long values cannot make a hint expensive.
	short := utf8.RuneCountInString(fl) <= maxEditRunes
	type scored struct {
		value string
		tier  int
		dist  int
	}
	var found []scored
	for _, v := range values {
		if v == literal {
			continue
		}
		fv := schema.FoldNFKC(v)
		if fv == "" {
			continue
		}
		switch {
		case fv == fl:
			found = append(found, scored{v, 0, 0})
		case short && sameLabel(fv, fl):
			found = append(found, scored{v, 1, 0})
		case strings.Contains(fv, fl) || strings.Contains(fl, fv):
			found = append(found, scored{v, 2, abs(utf8.RuneCountInString(fv) - utf8.RuneCountInString(fl))})
		case !short || utf8.RuneCountInString(fv) > maxEditRunes:
		default:
			d := editDistance(fv, fl)
			limit := utf8.RuneCountInString(fl) / 3
			if limit < 1 {
				limit = 1
			}
			if d <= limit {
				found = append(found, scored{v, 3, d})
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].tier != found[j].tier {
			return found[i].tier < found[j].tier
		}
		return found[i].dist < found[j].dist
	})
	var out []string
	for _, f := range found {
		if len(out) == n {
			break
		}
		out = append(out, f.value)
	}
	return out
}

// sameLabel reports whether a value, or one of its words, is another word for the literal's label
// ("Gift Box" for ギフト).
func sameLabel(value, literal string) bool {
	if schema.SameFoldedLabel(value, literal) {
		return true
	}
	words := strings.FieldsFunc(value, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if schema.SameFoldedLabel(w, literal) {
			return true
		}
	}
	return false
}

// likeText is the text a LIKE, ILIKE or GLOB pattern looks for: its wildcards removed (each a gap).
func likeText(pattern string, glob bool) string {
	wild := "%_"
	if glob {
		wild = "*?[]"
	}
	var b strings.Builder
	for _, r := range pattern {
		if strings.ContainsRune(wild, r) {
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// editDistance is the Levenshtein distance between two strings, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// quoteList writes values as SQL literals separated by commas.
func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = schema.QuoteString(clipText(v, 60))
	}
	return strings.Join(q, ", ")
}

// clipText cuts s to n runes on one line. Only ASCII white space is collapsed: an ideographic or
// no-break space is kept, since it may be the very difference a hint shows.
func clipText(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsSpace(r) }), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
