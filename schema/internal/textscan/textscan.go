// Package textscan holds the few steps every phrase reader under schema/ takes on a cell of free text
// before and while it matches its phrase table: a bounded prefix (Clip), the folded form the tables
// are written in (Spaced), the length of a UTF-8 character from its first byte (RuneLen), and whether
// a phrase of ASCII letters is a whole word where it was found (WordEnds).
package textscan

import (
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
)

// Clip cuts s to at most n bytes, at the start of a character, so that matching stays linear in a
// bound whatever a cell holds.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Spaced is schema.FoldNFKC with every run of white space one space, the form free text is matched in.
func Spaced(s string) string { return strings.Join(strings.Fields(schema.FoldNFKC(s)), " ") }

// WordEnds reports whether s[i:j] may be a phrase there: one of ASCII letters must be a whole word (an
// "s" may follow it).
func WordEnds(s string, i, j int, ascii bool) bool {
	if !ascii {
		return true
	}
	if i > 0 && isWordByte(s[i-1]) {
		return false
	}
	if j < len(s) && s[j] == 's' {
		j++
	}
	return j >= len(s) || !isWordByte(s[j])
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// RuneLen is the length of the UTF-8 character whose first byte is b (1 for a byte that starts none).
func RuneLen(b byte) int {
	switch {
	case b < 0xc0:
		return 1
	case b < 0xe0:
		return 2
	case b < 0xf0:
		return 3
	}
	return 4
}
