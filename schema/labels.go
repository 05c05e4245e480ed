package schema

import (
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// LabelColumn is a column, of a table or a view, whose values are a small vocabulary of codes or words.
type LabelColumn struct {
	Relation, Column string
	List             bool // a VARCHAR[] of labels (list_contains)
}

// LabelColumns lists every label column of the public datasets' tables and views (Relations), in
// their order; a file-name alias holds its table's columns, so it is not listed again.
func LabelColumns() []LabelColumn {
	var out []LabelColumn
	for _, r := range Relations() {
		if r.Kind == AliasRelation {
			continue
		}
		for _, c := range r.Columns {
			if c.Label() {
				out = append(out, LabelColumn{Relation: r.Name, Column: c.Name, List: c.List()})
			}
		}
	}
	return out
}

// LabelWords are other words for the labels the data uses: English and Japanese, kana and kanji. Each
// group is one meaning. They are used to suggest a value the data holds, never to rewrite a query.
var LabelWords = [][]string{
	{"cafe", "café", "カフェ", "喫茶", "喫茶店", "coffee", "コーヒー"},
	{"restaurant", "レストラン", "飲食", "飲食店", "食事", "dining"},
	{"retail", "物販", "小売", "ショップ", "shop", "shopping", "ショッピング", "store"},
	{"bar", "バー", "酒場", "pub"},
	{"service", "サービス"},
	{"gift", "ギフト", "贈り物", "贈答", "プレゼント", "present", "お土産", "souvenir"},
	{"food", "フード", "食品", "食べ物"},
	{"drink", "ドリンク", "飲み物", "飲料", "beverage"},
	{"sweets", "スイーツ", "お菓子", "菓子", "デザート", "dessert"},
	{"goods", "雑貨", "グッズ", "小物"},
	{"family", "ファミリー", "家族", "家族連れ", "families"},
	{"kids", "子供", "子ども", "こども", "キッズ", "子連れ", "children", "child", "kid"},
	{"adult", "大人", "おとな", "adults"},
	{"senior", "シニア", "高齢者", "seniors"},
	{"student", "学生", "students"},
	{"women", "女性", "woman", "ladies"},
	{"business", "ビジネス", "接待"},
	{"couple", "カップル", "couples"},
	{"friends", "友人グループ", "友人", "友達", "グループ"},
	{"pets", "ペット連れ", "ペット", "pet", "dog", "犬"},
	{"locals", "地域住民", "地元", "local"},
	{"monday", "月曜日", "月曜", "mon"},
	{"tuesday", "火曜日", "火曜", "tue"},
	{"wednesday", "水曜日", "水曜", "wed"},
	{"thursday", "木曜日", "木曜", "thu"},
	{"friday", "金曜日", "金曜", "fri"},
	{"saturday", "土曜日", "土曜", "sat"},
	{"sunday", "日曜日", "日曜", "sun"},
	{"holiday", "休業", "休日", "定休日"},
	{"maintenance", "メンテナンス", "点検", "設備点検"},
	{"private_event", "貸切", "貸し切り", "private"},
}

// FoldNFKC is the form two words are compared in: Unicode NFKC (full-width letters and digits become
// half-width, half-width kana full-width), lower case, and without surrounding space. It keeps
// hiragana and katakana apart, unlike fold.Fold (schema/fold): the phrase tables match inside words,
// where "ない" must not find "ナイト".
func FoldNFKC(s string) string {
	return strings.ToLower(strings.TrimSpace(norm.NFKC.String(s)))
}

// SameLabel reports whether two words name the same label: equal once folded, or in one group of
// LabelWords (an English plural counts as its singular).
func SameLabel(a, b string) bool { return SameFoldedLabel(FoldNFKC(a), FoldNFKC(b)) }

// SameFoldedLabel is SameLabel for words already folded by FoldNFKC.
func SameFoldedLabel(fa, fb string) bool {
	if fa == fb {
		return true
	}
	groups := labelGroups()
	ga, ok := groups[fa]
	if !ok {
		ga, ok = groups[singular(fa)]
	}
	if !ok {
		return false
	}
	gb, ok := groups[fb]
	if !ok {
		gb, ok = groups[singular(fb)]
	}
	return ok && ga == gb
}

var (
	groupsOnce sync.Once
	groupOf    map[string]int
)

// labelGroups maps each folded word of LabelWords to its group.
func labelGroups() map[string]int {
	groupsOnce.Do(func() {
		groupOf = map[string]int{}
		for i, group := range LabelWords {
			for _, w := range group {
				groupOf[FoldNFKC(w)] = i
			}
		}
	})
	return groupOf
}

// singular drops an English plural's s ("beverages", "gifts").
func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}
