// Package escape shows text from the data to people safely: control characters, the C1 range, bidi
// controls and line separators become visible escapes, so that nothing in a cell, a header or a file
// name can move the cursor, recolour the terminal, reorder what is shown or start a line of its own.
// Data formats (csv, jsonl) keep the data exact and do not use it.
package escape

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character that is not safe to show written as an escape: \n, \r and
// \t as such, other controls as \xNN or \uNNNN, and bytes that are not UTF-8 as \xNN. Everything
// else, Japanese text included, is kept as it is.
func Visible(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && Unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// safe reports whether s needs no escaping.
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			goto slow
		}
	}
	return true
slow:
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if Unsafe(r) {
			return false
		}
	}
	return true
}

// Unsafe reports whether r must not reach a reader raw: C0 controls, DEL, the C1 range, the bidi
// embedding, override, isolate and mark characters, and the Unicode line and paragraph separators.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// excerptRunes is how many characters of a cell a report quotes.
const excerptRunes = 60

// Quote quotes a cell for a message, cut to excerptRunes characters (with … after the cut), in Go
// syntax: every control character is escaped and the quotes show where the cell starts and ends.
func Quote(s string) string {
	cut := false
	if utf8.RuneCountInString(s) > excerptRunes {
		n := 0
		for i := range s {
			if n == excerptRunes {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	q := strconv.Quote(s)
	if cut {
		q += "…"
	}
	return Visible(q)
}

// JSON makes encoded JSON safe to show: DEL, the C1 range and the bidi and separator characters, which
// JSON allows raw inside strings, are written as \u escapes. The document means exactly what it meant.
func JSON(b []byte) []byte {
	s := string(b)
	rawInJSON := func(r rune) bool { return r >= 0x7f && Unsafe(r) }
	if !strings.ContainsFunc(s, rawInJSON) {
		return b
	}
	var out strings.Builder
	for _, r := range s {
		if rawInJSON(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}
