package hint

import (
	"reflect"
	"testing"
)

func TestCharDifference(t *testing.T) {
	for _, tt := range []struct{ query, value, want string }{
		{"茶房 ひだまり", "茶房\u3000ひだまり", "U+3000 IDEOGRAPHIC SPACE where the query has U+0020 SPACE"},
		{"ソルベ-2", "ソルベー2", "U+30FC KATAKANA-HIRAGANA PROLONGED SOUND MARK where the query has U+002D HYPHEN-MINUS"},
		{"cafe", "ｃａｆｅ", "U+FF43 FULLWIDTH LATIN SMALL LETTER C where the query has U+0063 LATIN SMALL LETTER C, " +
			"U+FF41 FULLWIDTH LATIN SMALL LETTER A where the query has U+0061 LATIN SMALL LETTER A, " +
			"U+FF46 FULLWIDTH LATIN SMALL LETTER F where the query has U+0066 LATIN SMALL LETTER F"},
		{"ひだまり", "ひだ\u200bまり", "an invisible U+200B ZERO WIDTH SPACE in the value"},
		{"ひだ\ufeffまり", "ひだまり", "an invisible U+FEFF ZERO WIDTH NO-BREAK SPACE in the query"},
		{"ひだまり", "ひなたまり", ""}, // a visible difference
		{"ひだまり", "ひだまる", ""},  // likewise
		{"same", "same", ""},  // no difference at all
		{"a b", "a\u200b\u3000b", "an invisible U+200B ZERO WIDTH SPACE in the value, U+3000 IDEOGRAPHIC SPACE where the query has U+0020 SPACE"},
	} {
		if got := charDifference(tt.query, tt.value); got != tt.want {
			t.Errorf("charDifference(%q, %q) = %q, want %q", tt.query, tt.value, got, tt.want)
		}
	}
}

// Candidates are chosen by shared characters after folding: a Japanese near miss is kept, where a
// byte-counting distance would rank it below unrelated ASCII.
func TestNearByCharacters(t *testing.T) {
	for _, tt := range []struct {
		word   string
		values []string
		n      int
		want   []string
	}{
		{"茶房ひだまり", []string{"ab", "茶房 ひだまり", "xyz", "ひだまり堂", "茶"}, 5, []string{"茶房 ひだまり", "ひだまり堂"}},
		{"中", []string{"a", "b", "中華 そば"}, 5, []string{"中華 そば"}},
		{"cafe", []string{"ＣＡＦＥ ソラ", "face", "dog"}, 1, []string{"ＣＡＦＥ ソラ"}},
	} {
		if got := nearByCharacters(tt.word, tt.values, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("nearByCharacters(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
