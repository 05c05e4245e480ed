package schema

import "testing"

func TestSameLabel(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"cafe", "カフェ", true}, {"喫茶", "CAFE", true}, {"gift", "ギフト", true}, {"Gifts", "贈り物", true},
		{"子ども", "子供", true}, {"キッズ", "子供", true}, {"ファミリー", "家族", true}, {"ｶﾌｪ", "cafe", true},
		{" Bar ", "bar", true}, {"Tuesday", "火曜日", true},
		{"cafe", "restaurant", false}, {"家族", "子供", false}, {"unknown", "unknown2", false}, {"class", "clas", false},
	}
	for _, tt := range tests {
		if got := SameLabel(tt.a, tt.b); got != tt.want {
			t.Errorf("SameLabel(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestFoldNFKC(t *testing.T) {
	tests := map[string]string{"  Ｃａｆｅ ": "cafe", "ﾄﾞｯｸﾞ": "ドッグ", "＆": "&", "ＡＢＣ１２３": "abc123"}
	for in, want := range tests {
		if got := FoldNFKC(in); got != want {
			t.Errorf("FoldNFKC(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every label column schema/ declares exists, and each group of other words is told apart.
func TestLabelWordsAreDistinct(t *testing.T) {
	seen := map[string]int{}
	for i, group := range LabelWords {
		for _, w := range group {
			if j, ok := seen[FoldNFKC(w)]; ok && j != i {
				t.Errorf("%q is in two groups of LabelWords", w)
			}
			seen[FoldNFKC(w)] = i
		}
	}
}
