package hint

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	categories := []string{"retail", "restaurant", "bar", "service", "cafe"}
	tags := []string{"フード", "ギフト", "雑貨", "ドリンク", "スイーツ"}
	audience := []string{"ファミリー", "友人グループ", "子供", "家族", "シニア", "大人"}
	names := []string{"中村藤吉 麻布台ヒルズ店", "ドッグサロン&カフェ わんテラス", "アラビカ 麻布台ヒルズ", "Cafe de Ｔｏｋｙｏ", "バー ルミエール"}
	tests := []struct {
		name    string
		literal string
		values  []string
		want    []string
	}{
		{"case", "Cafe", categories, []string{"cafe"}},
		{"upper case", "RETAIL", categories, []string{"retail"}},
		{"English for Japanese", "gift", tags, []string{"ギフト"}},
		{"Japanese for English", "カフェ", categories, []string{"cafe"}},
		{"kanji for English", "喫茶", categories, []string{"cafe"}},
		{"kana variant", "子ども", audience, []string{"子供"}},
		{"katakana kids", "キッズ", audience, []string{"子供"}},
		{"store word for event word", "家族", []string{"ファミリー", "子供"}, []string{"ファミリー"}},
		{"event word for store word", "ファミリー", []string{"家族", "大人"}, []string{"家族"}},
		{"plural", "restaurants", categories, []string{"restaurant"}},
		{"typo", "resturant", categories, []string{"restaurant"}},
		{"trailing space", "アラビカ 麻布台ヒルズ ", names, []string{"アラビカ 麻布台ヒルズ"}},
		{"name without suffix", "中村藤吉", names, []string{"中村藤吉 麻布台ヒルズ店"}},
		{"full-width for half-width", "ドッグサロン＆カフェ", names, []string{"ドッグサロン&カフェ わんテラス"}},
		{"half-width for full-width", "cafe de tokyo", names, []string{"Cafe de Ｔｏｋｙｏ"}},
		{"half-width kana", "ｱﾗﾋﾞｶ", names, []string{"アラビカ 麻布台ヒルズ"}},
		{"nothing close", "ラーメン", categories, nil},
		{"no false hint: the literal exists", "cafe", categories, nil},
		{"empty literal", "  ", categories, nil},
		{"at most three", "a", []string{"a1", "a2", "a3", "a4"}, []string{"a1", "a2", "a3"}},
		{"folded equal before substring", "bar", []string{"barista", "BAR"}, []string{"BAR", "barista"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := suggest(tt.literal, tt.values, maxSuggestions); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("suggest(%q) = %q, want %q", tt.literal, got, tt.want)
			}
		})
	}
}

func TestLikeText(t *testing.T) {
	tests := []struct {
		pattern string
		glob    bool
		want    string
	}{
		{"%ドッグサロン＆カフェ%", false, "ドッグサロン＆カフェ"},
		{"caf_", false, "caf"},
		{"%a%b%", false, "a b"},
		{"*cafe?", true, "cafe"},
		{"100%", true, "100%"},
	}
	for _, tt := range tests {
		if got := likeText(tt.pattern, tt.glob); got != tt.want {
			t.Errorf("likeText(%q, %v) = %q, want %q", tt.pattern, tt.glob, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"cafe", "cafe", 0}, {"cafe", "cafes", 1}, {"resturant", "restaurant", 1},
		{"子ども", "子供", 2}, {"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// A huge literal or long values never reach the edit distance: ranking stays linear in their length.
func TestSuggestLongText(t *testing.T) {
	long := strings.Repeat("麻布台", 30000)
	values := make([]string, 200)
	for i := range values {
		values[i] = strings.Repeat("x", 500) + fmt.Sprint(i)
	}
	if got := suggest(long, values, maxSuggestions); got != nil {
		t.Errorf("suggest(long) = %q", got)
	}
	if got := suggest("x", []string{long + "x"}, maxSuggestions); len(got) != 1 {
		t.Errorf("a long value containing the literal is still suggested: %q", got)
	}
}
