package console

import (
	"regexp"
	"testing"

	"github.com/azabudai/ctool/schema/fold"
)

// The pattern of a folded word matches a text exactly when the text's fold contains the word: the
// inverse is held to Fold over every character Fold changes, and over kana with each sound mark.
func TestPatternMatchesFold(t *testing.T) {
	var texts []string
	for _, rg := range fold.Ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			texts = append(texts, string(r), string(r)+"ﾞ", string(r)+"\u3099", string(r)+"ﾟ", "x"+string(r)+"y")
		}
	}
	texts = append(texts, "ちょこれーと", "ﾁｮｺﾚｰﾄ", "チョコレート", "ｶﾞﾑ", "カム", "がむ", "ＣＡＦＥ", "cafe", "a.b", "a*b")
	terms := []string{"チョコ", "ガ", "カ", "ム", "cafe", "a.b", "パ", "ハ", "ー", "ヴ", "ウ"}
	for _, term := range terms {
		re := regexp.MustCompile(Pattern(term))
		for _, text := range texts {
			want := containsFold(text, term)
			if got := re.MatchString(text); got != want {
				t.Errorf("Pattern(%q) on %q = %v, Fold says %v", term, text, got, want)
			}
		}
	}
}

func containsFold(text, term string) bool {
	return regexp.MustCompile(regexp.QuoteMeta(term)).MatchString(fold.Fold(text))
}

func TestTerms(t *testing.T) {
	got := Terms("  ちょこ  ＣＡＦＥ ")
	if len(got) != 2 || got[0] != "チョコ" || got[1] != "cafe" {
		t.Errorf("Terms = %q", got)
	}
}
