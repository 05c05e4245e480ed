// Package fold is the form a name is compared in however it is typed (Fold), in Go and as the SQL
// macro fold() (MacroSQL), which the main database's migrations create from the same rule.
package fold

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/azabudai/ctool/schema"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Fold is the form of a name however it is typed: "ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ" is "ジェラート マリーナ", "ＢＡＹ　ＢＲＥＷ"
// is "bay brew". Full-width and half-width forms are one (golang.org/x/text/width), hiragana and
// katakana are one, ASCII letters have no case, a spacing or half-width sound mark joins the kana
// before it (ｶﾞ and か゛ are ガ), and white space is one space between words. The console's search
// folds with it, and queries with the SQL macro fold(), which MacroSQL writes from the same rule.
//
// Fold maps each character alone (foldRune), composes the result (NFC: a kana and its combining mark
// become one character), then squeezes white space. That order is what SQL can do too: translate(),
// nfc_normalize(), regexp_replace() and trim(). Only ASCII letters lose their case, because a
// one-character table cannot follow Unicode's case rules, and a sound mark that joins no kana becomes
// the combining mark.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return strings.Join(strings.Fields(norm.NFC.String(b.String())), " ")
}

// Ranges hold every character that Fold maps by itself; outside them it maps none
// (TestFoldRangesHoldEveryChange checks all of Unicode). Each is a group of fold()'s table: ASCII
// letters, the Kelvin sign, Japanese (ideographic space, hiragana, sound marks), full-width ASCII,
// half-width katakana, and the rest of the half-width and full-width forms.
var Ranges = [][2]rune{{'A', 'Z'}, {0x212A, 0x212A}, {0x3000, 0x30FF}, {0xFF00, 0xFF60}, {0xFF61, 0xFF9F}, {0xFFA0, 0xFFEF}}

// SoundMarks are the marks that may follow a kana: combining, spacing and half-width, voiced then
// semi-voiced.
var SoundMarks = []rune{0x3099, 0x309B, 0xFF9E, 0x309A, 0x309C, 0xFF9F}

// foldRune folds one character alone: width, kana, ASCII case, and a sound mark as the combining one.
func foldRune(r rune) rune {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	if f := width.LookupRune(r).Folded(); f != 0 {
		r = f
	}
	switch {
	case r >= 'A' && r <= 'Z': // from full width
		r += 'a' - 'A'
	case r == 0x212A: // KELVIN SIGN, which NFC would make an upper-case K
		r = 'k'
	case r >= 0x3041 && r <= 0x3096, r == 0x309D, r == 0x309E: // hiragana, ゝゞ
		r += 0x60
	case r == 0x309B: // ゛
		r = 0x3099
	case r == 0x309C: // ゜
		r = 0x309A
	}
	return r
}

// MacroSQL is the statement that creates the SQL macro fold(t): Fold in SQL, written from the Go
// rule so there is one. translate() maps every character foldRune changes, nfc_normalize() composes a
// kana with its mark, regexp_replace() squeezes white space (Unicode's White_Space, which
// strings.Fields splits on) and trim() cuts the ends. NULL gives NULL.
//
// DuckDB's translate() builds its table from its arguments on every row, at about 0.1 µs a
// character: all 343 of Fold's cost 40 µs a row here. So the table a row gets holds only the groups
// (Ranges) of characters the row has, each found by a regexp_matches() of its own: a row of
// Japanese text gets the hiragana's 92. BenchmarkFoldMacro (migrations/) measured 14–26 µs a row, for
// its mix of Japanese and English rows, on the same shared two-core machine (lower(): 0.6 µs).
func MacroSQL() string {
	var from, to []string
	for _, rg := range Ranges {
		var f, t []rune
		for r := rg[0]; r <= rg[1]; r++ {
			if x := foldRune(r); x != r {
				f, t = append(f, r), append(t, x)
			}
		}
		when := fmt.Sprintf("CASE WHEN regexp_matches(t, %s) THEN ", schema.QuoteString(reClass(f)))
		from = append(from, when+schema.QuoteString(string(f))+" ELSE '' END")
		to = append(to, when+schema.QuoteString(string(t))+" ELSE '' END")
	}
	return fmt.Sprintf("CREATE MACRO %s(t) AS trim(regexp_replace(nfc_normalize(translate(t, %s, %s)), %s, ' ', 'g'))",
		schema.MacroFold, strings.Join(from, " || "), strings.Join(to, " || "), schema.QuoteString(reClass(spaces())+"+"))
}

// spaces are the white space characters, unicode.IsSpace's.
func spaces() []rune {
	var out []rune
	for _, r := range unicode.White_Space.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			out = append(out, c)
		}
	}
	for _, r := range unicode.White_Space.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			out = append(out, c)
		}
	}
	return out
}

// reClass is an RE2 character class of rs, which are in order.
func reClass(rs []rune) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		fmt.Fprintf(&b, `\x{%X}`, rs[i])
		if j > i {
			fmt.Fprintf(&b, `-\x{%X}`, rs[j])
		}
		i = j + 1
	}
	b.WriteString("]")
	return b.String()
}
