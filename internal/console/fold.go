package console

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema/fold"
)

// Search folds text the way people type it, with fold.Fold: full-width and half-width forms are one,
// hiragana and katakana are one, ASCII letters have no case, and a half-width or spacing sound mark
// joins the kana before it (ｶﾞ is ガ). The data is not folded in SQL: DuckDB's translate() over four
// columns of a million products took 22–35 s here, against 0.3–0.5 s for a plain contains(). Instead
// the folded words become a pattern (Pattern) that matches exactly the raw text whose fold holds them,
// built by inverting fold.Fold over every character it changes; DuckDB's regexp_matches reads it at
// 0.3–0.6 s a column of a million descriptions, the five searched columns in 0.5–1.1 s. So the rule is
// applied the same way to the data and to what is typed, and TestPatternMatchesFold holds the two to
// each other. A folded copy of the searched text stored beside products was measured and not kept
// (bench/results/console.md): contains() over it was no faster than the patterns over the raw columns,
// the file grew from 73 to 181 MB, and fold.Fold of a million descriptions alone takes about 4 s in Go,
// more than the whole ingest.

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
	for _, rg := range fold.Ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			if !utf8.ValidRune(r) || unicode.Is(unicode.Cn, r) {
				continue
			}
			if f, ok := oneRune(fold.Fold(string(r))); ok {
				add(f, string(r))
			}
			if !slices.Contains(fold.SoundMarks, r) && !unicode.IsSpace(r) {
				bases = append(bases, r)
			}
		}
	}
	for _, r := range bases {
		for _, m := range fold.SoundMarks {
			if f, ok := oneRune(fold.Fold(string([]rune{r, m}))); ok {
				add(f, string([]rune{r, m}))
			}
		}
	}
	return inv
})

// oneRune is the character s is, if it is one.
func oneRune(s string) (rune, bool) {
	r, n := utf8.DecodeRuneInString(s)
	return r, n > 0 && n == len(s)
}

// maxSearchRunes bounds what a search may hold, and so the size of its pattern.
const maxSearchRunes = 64

// Terms splits what was typed into the folded words a search looks for, at most five.
func Terms(typed string) []string {
	var out []string
	for _, w := range strings.Fields(typed) {
		if f := fold.Fold(w); f != "" && len(out) < 5 {
			if utf8.RuneCountInString(f) > maxSearchRunes {
				f = string([]rune(f)[:maxSearchRunes])
			}
			out = append(out, f)
		}
	}
	return out
}

// Pattern is a regular expression (RE2, as DuckDB's regexp_matches reads it) that matches text whose
// fold.Fold contains the folded word term. A kana that a sound mark could change must not be followed by
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
	for _, m := range fold.SoundMarks {
		if _, ok := oneRune(fold.Fold(string([]rune{f, m}))); ok {
			marks += fmt.Sprintf(`\x{%X}`, m)
		}
	}
	if marks == "" {
		return ""
	}
	return "(?:$|[^" + marks + "])"
}
