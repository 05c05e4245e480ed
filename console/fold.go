package console

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Search folds Japanese text the way people type it: full-width and half-width forms are one
// (golang.org/x/text/width), hiragana and katakana are one, ASCII letters have no case, and a
// half-width or spacing sound mark joins the kana before it (ｶﾞ is ガ). Fold is the rule. The data is
// not folded in SQL: DuckDB's translate() over four columns of a million products took 22–35 s here,
// against 0.3–0.5 s for a plain contains(). Instead the folded words become a pattern (Pattern) that
// matches exactly the raw text whose fold holds them, built by inverting Fold over every character it
// changes; DuckDB's regexp_matches reads it at 1–1.5 s a column of a million descriptions. So the rule
// is applied the same way to the data and to what is typed, and TestPatternMatchesFold holds the two
// to each other. A folded search column written at ingest would bring the search down to contains()
// speed, at the ingest's cost.

// Fold is the folded form of s.
func Fold(s string) string {
	var b strings.Builder
	rs := []rune(norm.NFC.String(s))
	for i := 0; i < len(rs); i++ {
		r := foldRune(rs[i])
		if i+1 < len(rs) && isMark(rs[i+1]) {
			if v, ok := voiced(r, rs[i+1]); ok {
				r = v
				i++
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldRune folds one character alone: width, kana, ASCII case.
func foldRune(r rune) rune {
	if f := []rune(width.Fold.String(string(r))); len(f) == 1 {
		r = f[0]
	}
	switch {
	case r >= 0x3041 && r <= 0x3096, r == 0x309D, r == 0x309E: // hiragana, ゝゞ
		r += 0x60
	case r >= 'A' && r <= 'Z':
		r += 'a' - 'A'
	}
	return r
}

// isMark reports a sound mark that may follow a kana: combining, spacing or half-width.
func isMark(r rune) bool {
	switch r {
	case 0x3099, 0x309A, 0x309B, 0x309C, 0xFF9E, 0xFF9F:
		return true
	}
	return false
}

// voiced is kana k (already folded) with sound mark m, when that is one character.
func voiced(k, m rune) (rune, bool) {
	comb := rune(0x3099)
	if m == 0x309A || m == 0x309C || m == 0xFF9F {
		comb = 0x309A
	}
	c := []rune(norm.NFC.String(string([]rune{k, comb})))
	if len(c) == 1 {
		return c[0], true
	}
	return 0, false
}

// foldRanges are the characters Fold may change, the ones the inverse is built from.
var foldRanges = [][2]rune{{'A', 'Z'}, {0x3000, 0x30FF}, {0xFF00, 0xFFEF}}

// inverse maps a folded character to the raw texts (one character, or a kana and its mark) that fold
// to it, the character itself first. It is built on the first search, not at start: building it takes
// as long as the rest of a ctool process's start (every command links the console in).
var inverse = sync.OnceValue(func() map[rune][]string {
	inv := map[rune][]string{}
	add := func(f rune, raw string) {
		if raw != string(f) {
			inv[f] = append(inv[f], raw)
		}
	}
	var bases []rune
	for _, rg := range foldRanges {
		for r := rg[0]; r <= rg[1]; r++ {
			if !utf8.ValidRune(r) || unicode.Is(unicode.Cn, r) {
				continue
			}
			if f := Fold(string(r)); utf8.RuneCountInString(f) == 1 {
				fr, _ := utf8.DecodeRuneInString(f)
				add(fr, string(r))
			}
			if !isMark(r) {
				bases = append(bases, r)
			}
		}
	}
	for _, r := range bases {
		for _, m := range []rune{0x3099, 0x309A, 0x309B, 0x309C, 0xFF9E, 0xFF9F} {
			if f := []rune(Fold(string([]rune{r, m}))); len(f) == 1 {
				add(f[0], string([]rune{r, m}))
			}
		}
	}
	return inv
})

// maxSearchRunes bounds what a search may hold, and so the size of its pattern.
const maxSearchRunes = 64

// Terms splits what was typed into the folded words a search looks for, at most five.
func Terms(typed string) []string {
	var out []string
	for _, w := range strings.Fields(typed) {
		if f := Fold(w); f != "" && len(out) < 5 {
			if utf8.RuneCountInString(f) > maxSearchRunes {
				f = string([]rune(f)[:maxSearchRunes])
			}
			out = append(out, f)
		}
	}
	return out
}

// Pattern is a regular expression (RE2, as DuckDB's regexp_matches reads it) that matches text whose
// Fold contains the folded word term. A kana that a sound mark could change must not be followed by
// one, or カ would find ｶﾞ (ガ); inside the word the next character already rules that out.
func Pattern(term string) string {
	var b strings.Builder
	rs := []rune(term)
	for i, f := range rs {
		alts := append([]string{string(f)}, inverse()[f]...)
		for j, a := range alts {
			alts[j] = regexp.QuoteMeta(a)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
		if i == len(rs)-1 {
			b.WriteString(notMarked(f))
		}
	}
	return b.String()
}

// notMarked is what must follow folded character f at the end of a word: not a sound mark that would
// make it another character.
func notMarked(f rune) string {
	var marks string
	if _, ok := voiced(f, 0x3099); ok {
		marks += `\x{3099}\x{309B}\x{FF9E}`
	}
	if _, ok := voiced(f, 0x309A); ok {
		marks += `\x{309A}\x{309C}\x{FF9F}`
	}
	if marks == "" {
		return ""
	}
	return "(?:$|[^" + marks + "])"
}
