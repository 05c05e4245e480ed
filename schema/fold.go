package schema

import (
	"strings"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Fold is the form of a name however it is typed: "ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ" is "ジェラート マリーナ", "ＢＡＹ　ＢＲＥＷ"
// is "bay brew".
// Full-width and half-width forms are one (golang.org/x/text/width), hiragana and katakana are one,
// ASCII letters have no case, a spacing or half-width sound mark joins the kana before it (ｶﾞ and か゛
// are ガ), and white space is one space between words. The console's search folds with it.
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

// FoldRanges hold every character that Fold maps by itself; outside them it maps none
// (TestFoldRangesHoldEveryChange checks all of Unicode).
var FoldRanges = [][2]rune{{'A', 'Z'}, {0x212A, 0x212A}, {0x3000, 0x30FF}, {0xFF00, 0xFFEF}}

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
