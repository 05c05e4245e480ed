package fold

import (
	"testing"
	"unicode/utf8"
)

func TestFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ちょこ", "チョコ"},
		{"ﾁｮｺ", "チョコ"},
		{"チョコ", "チョコ"},
		{"ｶﾞﾑ", "ガム"},
		{"ﾊﾟﾝ", "パン"},
		{"か゛", "ガ"},
		{"か\u3099", "ガ"},
		{"ア゛", "ア\u3099"}, // a mark that joins nothing stays, as the combining mark
		{"ゔ", "ヴ"},
		{"ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ", "ジェラート マリーナ"},
		{"ＢＡＹ　ＢＲＥＷ  ＤＯＣＫ", "bay brew dock"},
		{"がっこう", "ガッコウ"},
		{"ＣＡＦＥ　Ｌａｔｔｅ", "cafe latte"},
		{"Café", "café"},
		{"CAFÉ", "cafÉ"}, // ASCII letters only
		{"E\u0301", "é"},
		{"１，０００円", "1,000円"},
		{" \t\u3000 a \n\u00a0b\u2003 ", "a b"},
		{"", ""},
		{"\u3000", ""},
	} {
		if got := Fold(c.in); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Outside Ranges no character is mapped by itself, so the ranges are all the inverse of the
// console's search and the macro's table need; and a folded text folds to itself.
func TestFoldRangesHoldEveryChange(t *testing.T) {
	in := func(r rune) bool {
		for _, rg := range Ranges {
			if r >= rg[0] && r <= rg[1] {
				return true
			}
		}
		return false
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if !in(r) && foldRune(r) != r {
			t.Errorf("foldRune(%U) = %U, outside Ranges", r, foldRune(r))
		}
		if f := Fold(string(r)); Fold(f) != f {
			t.Errorf("Fold(%U) = %q, which folds to %q", r, f, Fold(f))
		}
	}
}
