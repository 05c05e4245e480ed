package hint

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/azabudai/ctool/schema"
	"golang.org/x/text/unicode/runenames"
)

// LookAlike: a close value that differs from what the query wrote only by characters that look alike
// (an ideographic space for a space, a long-vowel mark for a hyphen) or cannot be seen (a zero-width
// space) looks identical in a hint: the hint names those characters by code point and Unicode name,
// one hint for each such value.
const LookAlike Kind = "look-alike"

var lookAlike = &analyzer{scope: eachCondition, run: func(p *pass, i int) []Hint {
	c := p.conds[i]
	if c.jsonText() || !p.unmatched(i) {
		return nil
	}
	var out []Hint
	for _, lit := range c.literals {
		for _, v := range p.nearValues(i).close {
			if d := charDifference(c.searched(lit), v); d != "" {
				out = append(out, Hint{Kind: LookAlike, Condition: c.text, Text: schema.QuoteString(v) + " has " + d})
			}
		}
	}
	return out
}}

// maxNamedChars is how many differing characters a hint names.
const maxNamedChars = 3

// lookAlikeGroups are characters that are easily typed or read one for another.
var lookAlikeGroups = [][]rune{
	{' ', '\u00a0', '\u3000', '\u2002', '\u2003', '\u2009', '\u202f'},
	{'-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\u30fc', '\uff0d', '\uff70', '\u2500'},
	{'~', '\u301c', '\uff5e', '\u223c'},
	{'\'', '\u2018', '\u2019', '\uff07', '\u00b4', '`'},
	{'"', '\u201c', '\u201d', '\uff02'},
	{'・', '\uff65', '\u00b7', '\u2022'},
}

func sameLooking(a, b rune) bool {
	if a == b || schema.FoldNFKC(string(a)) == schema.FoldNFKC(string(b)) && schema.FoldNFKC(string(a)) != "" {
		return true
	}
	if unicode.IsSpace(a) && unicode.IsSpace(b) {
		return true
	}
	for _, g := range lookAlikeGroups {
		if strings.ContainsRune(string(g), a) && strings.ContainsRune(string(g), b) {
			return true
		}
	}
	return false
}

// invisible reports whether r shows nothing: format characters (zero-width space and joiners, the
// byte order mark, the soft hyphen) and variation selectors.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)
}

// codePoint names a character as "U+3000 IDEOGRAPHIC SPACE".
func codePoint(r rune) string {
	name := runenames.Name(r)
	if name == "" {
		return fmt.Sprintf("U+%04X", r)
	}
	return fmt.Sprintf("U+%04X %s", r, name)
}

// charDifference says how value differs from what the query wrote when the difference is only in
// characters that look alike or are invisible, as "U+3000 IDEOGRAPHIC SPACE where the query has U+0020
// SPACE"; "" when the two differ visibly, or not at all.
func charDifference(query, value string) string {
	if query == value {
		return ""
	}
	q, v := []rune(query), []rune(value)
	var parts []string
	if len(q) == len(v) {
		for i := range q {
			if q[i] == v[i] {
				continue
			}
			if !sameLooking(q[i], v[i]) {
				return ""
			}
			if len(parts) < maxNamedChars {
				parts = append(parts, codePoint(v[i])+" where the query has "+codePoint(q[i]))
			}
		}
		return strings.Join(parts, ", ")
	}
	// Different lengths: the same once the invisible characters are dropped, naming those.
	strip := func(rs []rune, who string) []rune {
		var out []rune
		for _, r := range rs {
			if invisible(r) {
				if len(parts) < maxNamedChars {
					parts = append(parts, fmt.Sprintf("an invisible %s in %s", codePoint(r), who))
				}
				continue
			}
			out = append(out, r)
		}
		return out
	}
	qs, vs := strip(q, "the query"), strip(v, "the value")
	if len(parts) == 0 {
		return ""
	}
	if rest := charDifference(string(qs), string(vs)); string(qs) != string(vs) && rest == "" {
		return ""
	} else if rest != "" {
		parts = append(parts, rest)
	}
	return strings.Join(parts, ", ")
}

// maxCandidates is the most distinct values of one column read to pre-select near misses from.
const maxCandidates = 5000

// nearByCharacters keeps the n values sharing the most characters with the folded word, counted as
// characters (runes) after folding, in the order given when tied.
func nearByCharacters(folded string, values []string, n int) []string {
	want := map[rune]bool{}
	for _, r := range folded {
		want[r] = true
	}
	type scored struct {
		v     string
		score int
	}
	var found []scored
	for _, v := range values {
		seen := map[rune]bool{}
		score := 0
		for _, r := range schema.FoldNFKC(v) {
			if want[r] && !seen[r] {
				seen[r] = true
				score++
			}
		}
		if score*2 >= len(want) {
			found = append(found, scored{v, score})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	out := make([]string, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.v)
	}
	return out
}
