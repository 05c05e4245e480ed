package venuematch

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

func sampleStores(tb testing.TB) []Store {
	tb.Helper()
	f, err := os.Open(filepath.Join("../../input", schema.Stores.SourceFile))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	var out []Store
	for _, r := range rows[1:] {
		out = append(out, Store{ID: r[0], Name: r[1]})
	}
	return out
}

func TestVenueMatch(t *testing.T) {
	v := New(sampleStores(t))
	for _, tt := range []struct {
		venue, id string
		looks     bool
		like      string
	}{
		// The sample's venues.
		{"蕎麦 ひより", "STR-0020", false, ""},
		{"洋菓子店クリオロ", "STR-0014", false, ""},
		{"中村藤吉 麻布台ヒルズ店", "STR-0003", false, ""},
		{"麻布台ヒルズマーケット キッチンスタジオ", "STR-0001", false, ""}, // the store's name, then a space
		{"FREUDE by BMW", "", false, ""},
		{"麻布台ヒルズ 中央広場", "", false, ""},
		{"麻布台ヒルズ ギャラリー", "", false, ""}, // the gallery, not the gallery shop
		{"麻布台ヒルズ タワープラザ 1F アトリウム", "", false, ""},
		{"麻布台ヒルズ 全館", "", false, ""},
		// Width, case and spaces folded.
		{"ｱﾗﾋﾞｶ 麻布台ﾋﾙｽﾞ", "STR-0004", false, ""},
		{"バー　ルミエール", "STR-0005", false, ""},
		{"  鮨  つかさ 麻布台 ", "STR-0006", false, ""},
		{"ワインバーヴィーニョ", "STR-0012", false, ""},
		// The store's name, then a break: a change of script, or 店.
		{"洋菓子店クリオロ本店", "STR-0014", false, ""},
		{"鮨 つかさ 麻布台店", "STR-0006", false, ""},
		{"バー ルミエールズ", "", true, "STR-0005"}, // a longer word of the same script: not the store, but like it
		// Names no store, but reads like one.
		{"クリオロ 六本木", "", true, "STR-0014"},
		{"アラビカ 京都", "", true, "STR-0004"},
		{"カフェ 新宿", "", true, ""},
		{"ラーメン屋台", "", true, ""},
		{"バーベキュー広場", "", false, ""}, // a place of the complex
		{"", "", false, ""},
	} {
		m := v.Match(tt.venue)
		if m.Store.ID != tt.id || m.LooksLikeStore != tt.looks || m.Like.ID != tt.like {
			t.Errorf("Match(%q) = %+v, want store %q, looks like a store %v (like %q)", tt.venue, m, tt.id, tt.looks, tt.like)
		}
	}
}

// Two stores of one name: a venue of that name names neither.
func TestVenueMatchSeveral(t *testing.T) {
	v := New([]Store{{"A", "カフェ ソラ"}, {"B", "ｶﾌｪ ｿﾗ"}, {"C", "カフェ ソラ 2号店"}})
	if m := v.Match("カフェ ソラ"); m.Store.ID != "" || len(m.Several) != 2 {
		t.Errorf("Match = %+v, want two stores alike and none named", m)
	}
	if m := v.Match("カフェ ソラ 2号店 テラス席"); m.Store.ID != "C" {
		t.Errorf("Match = %+v, want C, the longest name", m)
	}
}

// FuzzVenueMatch: any venue (the data's bytes) gets an answer without a panic, the same each time; a
// store it names has a name that folds to the start of the venue's.
func FuzzVenueMatch(f *testing.F) {
	stores := sampleStores(f)
	v := New(stores)
	for _, s := range []string{"蕎麦 ひより", "クリオロ 六本木", "麻布台ヒルズ 中央広場", "ｱﾗﾋﾞｶ", "\xe6\xae", "店店店店", "bar bar"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, venue string) {
		m := v.Match(venue)
		if again := v.Match(venue); again.Store != m.Store || again.LooksLikeStore != m.LooksLikeStore || again.Like != m.Like {
			t.Fatalf("Match(%q) = %+v, then %+v", venue, m, again)
		}
		if m.Store.ID != "" {
			name, key := foldVenue(m.Store.Name), foldVenue(venue)
			if !strings.HasPrefix(key, name) && strings.ReplaceAll(key, " ", "") != strings.ReplaceAll(name, " ", "") {
				t.Fatalf("Match(%q) names %q, whose name is not where the venue starts", venue, m.Store.Name)
			}
		}
	})
}
