package offers

import (
	"strings"
	"sync"

	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/internal/textscan"
)

// The phrase table Read and ReadCaveat read with, and the tokenizer that finds its phrases in
// folded text.

// cue is what a phrase says.
type cue int8

const (
	cueTopic      cue = iota + 1 // names a topic (its topics)
	cueIngredient                // an ingredient some diets avoid (its topics): "卵", "pork", "wheat"
	cueBarrier                   // a step or stairs: its absence is access
	cuePos                       // says something is offered: "あり", "対応可", "available"
	cueFreeOf                    // an offer by itself: "ノンポーク", "step-free"
	cueNegAfter                  // a Japanese negation of what precedes it: "なし", "ございません", "不可"
	cueAbsent                    // "不使用", "free": an ingredient before it is left out; nothing otherwise
	cueContains                  // "含みます", "contains": an ingredient before or after it is in the food
	cueNegBefore                 // an English negation of what follows it in the clause: "not", "cannot"
	cueNo                        // "no", "without": of an ingredient or a step, its absence; else a negation
	cueNegWord                   // a refusal by itself: "unavailable", "difficult"
	cueBarrierNeg                // a barrier by itself: "階段のみ", "stairs only", "narrow"
	cueHedge                     // a condition of an offer: "要予約", "on request", "shared fryer", "一部"
	cueLimit                     // a limit of an offer, not one by itself: "変更", "traces" (ReadCaveat only)
	cueOnly                      // "のみ", "only": a limit, or after a food that it is all there is (ReadCaveat only)
	cueAsk                       // "お問い合わせください", "please ask": says nothing by itself
	cueNeutral                   // says nothing, and keeps its parts from being read: "少ない", "不要"
	cueBreak                     // ends a clause: "。", ";", ":", a closing bracket
	cueComma                     // ends a clause, a caveat's too, which the next clause continues
	cueCaveat                    // ends a clause and starts a caveat: "ただし", "but", "が、", "（"
)

type phrases struct {
	cue    cue
	topics topicSet
	words  []string
}

// offerPhrases is the rule's table. Text is folded (NFKC, lower case, one space between words) before
// it is matched, and so are these; at each place the longest phrase wins, so "対応しておりません" is a
// negation though "対応" is an offer, and "段差なし" reads "段差" then "なし". Phrases of ASCII letters
// match whole words (an "s" may follow).
var offerPhrases = []phrases{
	{cueTopic, vegan, []string{"ヴィーガン", "ビーガン", "vegan", "プラントベース", "plant-based", "plant based", "菜食",
		"ベジタリアン", "vegetarian", "精進", "植物性"}},
	{cueTopic, vegan | plantMilk, []string{"豆乳", "ソイミルク", "soy milk", "oat milk", "オーツミルク", "アーモンドミルク",
		"almond milk", "plant-based milk", "plant milk", "植物性ミルク"}},
	{cueTopic, halal, []string{"ハラール", "ハラル", "halal", "ムスリム", "muslim", "イスラム", "islamic"}},
	{cueTopic, glutenFree, []string{"グルテンフリー", "gluten-free", "gluten free", "gf", "米粉", "rice flour", "十割",
		"セリアック", "celiac", "coeliac"}},
	{cueTopic, wheelchair, []string{"車椅子", "車いす", "車イス", "くるまいす", "wheelchair", "wheel chair", "バリアフリー",
		"barrier-free", "barrier free", "スロープ", "ramp", "エレベーター", "エレベータ", "elevator", "lift", "多目的トイレ",
		"多機能トイレ", "accessible toilet", "accessible restroom", "手すり", "handrail", "wheelchair access", "accessible", "fully accessible"}},
	{cueTopic, nursing, []string{"授乳", "授乳室", "授乳スペース", "授乳コーナー", "ベビールーム", "赤ちゃん休憩室",
		"nursing", "nursing room", "breastfeeding", "breast-feeding", "baby room", "lactation"}},
	{cueTopic, allergy, []string{"アレルギー", "アレルゲン", "特定原材料", "allergy", "allergies", "allergen"}},

	{cueIngredient, vegan, []string{"肉", "魚", "卵", "乳", "乳製品", "バター", "チーズ", "生クリーム", "はちみつ", "蜂蜜",
		"動物性", "動物性食材", "動物性原料", "鰹節", "かつお節", "魚介", "鶏", "鶏ガラ", "牛", "meat", "fish", "egg", "eggs",
		"dairy", "milk", "butter", "cheese", "honey", "animal products", "animal product", "seafood", "chicken", "beef"}},
	{cueIngredient, vegan | halal, []string{"豚", "豚肉", "ポーク", "ラード", "豚骨", "ハム", "ベーコン", "ゼラチン", "pork",
		"lard", "bacon", "ham", "gelatin"}},
	{cueIngredient, halal, []string{"アルコール", "酒", "みりん", "洋酒", "alcohol", "mirin"}},
	{cueIngredient, glutenFree, []string{"小麦", "小麦粉", "グルテン", "大麦", "ライ麦", "つなぎ", "wheat", "flour",
		"barley", "rye", "gluten"}},
	{cueBarrier, wheelchair, []string{"段差", "階段", "step", "stair", "staircase"}},

	{cuePos, 0, []string{"あり", "有り", "あります", "ございます", "対応", "対応可", "対応可能", "対応しています",
		"対応しております", "可", "可能", "できます", "出来ます", "用意", "ご用意", "提供", "取り扱い", "取扱い", "取扱",
		"認証", "取得", "利用可", "ご利用いただけます", "ご利用ください", "利用できます", "入店可", "来店可", "歓迎",
		"問題ありません", "問題ない", "問題なく", "予約不要", "ok", "okay", "available", "offer", "offered", "serve",
		"served", "provide", "provided", "welcome", "certified", "friendly", "suitable", "possible",
		"accommodate", "yes"}},
	{cueFreeOf, vegan, []string{"完全菜食"}},
	{cueFreeOf, halal, []string{"ノンポーク", "ノンアルコール", "pork-free", "alcohol-free"}},
	{cueFreeOf, glutenFree, []string{"ノングルテン"}},
	{cueFreeOf, wheelchair, []string{"step-free", "step free", "フラット", "段差のない", "段差がない", "段差はない",
		"段差がありません", "段差はありません", "段差はございません", "段差がございません", "no steps", "no step"}},
	{cueNegAfter, 0, []string{"なし", "無し", "ない", "ありません", "ございません", "おりません", "いません", "しません",
		"対応しておりません", "対応していません", "対応できません",
		"できません", "出来ません", "不可", "不可能", "困難", "難しい", "難しく", "非対応", "未対応", "対応外", "不対応",
		"対象外", "お断り", "ご遠慮", "行っておりません", "行っていません", "致しかねます", "いたしかねます", "かねます"}},
	{cueAbsent, 0, []string{"不使用", "未使用", "使用していません", "使用しておりません", "使っていません", "使わず",
		"使用しない", "使用せず", "使わない",
		"抜き", "除去", "含みません", "含まない", "含まず", "フリー", "free"}},
	{cueContains, 0, []string{"含みます", "含む", "含まれます", "含まれる", "使用しています", "使用", "使っています",
		"contains", "contain", "may contain", "used", "uses", "cooked in", "made with"}},
	{cueNegBefore, 0, []string{"not", "never", "cannot", "can't", "cant", "unable", "don't", "dont", "doesn't",
		"doesnt", "isn't", "isnt", "aren't", "arent", "won't", "non", "nor"}},
	{cueNo, 0, []string{"no", "without"}},
	{cueNegWord, 0, []string{"unavailable", "impossible", "difficult", "inaccessible", "none", "n/a"}},
	{cueBarrierNeg, wheelchair, []string{"階段のみ", "階段しか", "段差あり", "段差があります", "段差がある", "狭い", "狭く",
		"stairs only", "only stairs", "by stairs", "via stairs", "narrow"}},
	{cueHedge, 0, []string{"要予約", "予約制", "事前予約", "要事前予約", "ご予約", "予約", "前日まで", "日前まで", "事前に",
		"要相談", "応相談", "相談可", "ご相談", "相談", "一部", "数量限定", "限定", "場合があります", "場合もあります",
		"場合がございます", "お声がけ", "お声掛け", "お手伝い", "介助", "サポート", "共用", "同じ厨房", "同じフライヤー",
		"コンタミ", "on request", "upon request", "by request", "request", "in advance", "advance notice", "notice",
		"reservation", "reserve", "some", "limited", "partially", "partial", "shared", "assist", "assistance"}},
	// Limits are matched apart from the rest (limitTrie), so Read reads as it did without them;
	// where one overlaps another phrase, the other wins ("調味料のみりん" is mirin, not "のみ").
	{cueLimit, 0, []string{"変更", "差し替え", "切り替え", "代わりに", "substitute", "substituted", "substitution",
		"swap", "swapped", "instead", "change to", "changed to", "switch to", "replace", "replaced",
		"事前", "前日", "条件", "お申し付け", "申し付け", "お申し出", "申し出", "ご要望", "リクエスト", "名様以上", "名以上",
		"名様から", "or more", "minimum", "book", "booked", "booking", "pre-order", "preorder", "advance", "ahead",
		"day before", "days before", "hours before", "空いていれば", "空き状況", "subject to availability",
		"depending on availability", "なくなり次第", "売り切れ次第", "数に限り", "sold out", "while supplies last", "除く",
		"除き", "を除いて", "excluding", "uncertified", "手伝", "付き添い", "同伴", "help", "companion", "accompanied",
		"carry"}},
	// What a food shares with others (a kitchen, a fryer, traces): limits in a food column only.
	{cueLimit, vegan | halal | glutenFree, []string{"同じ", "同一", "共通", "same", "扱います",
		"扱っています", "扱っております", "扱う", "扱って", "混入", "微量", "trace", "traces", "cross-contamination",
		"cross contamination", "contamination", "cross-contact", "handles", "handled", "handling", "processed"}},
	{cueLimit, wheelchair, []string{"upstairs", "downstairs", "small", "小さい", "小さめ", "小型", "tight"}},
	{cueOnly, 0, []string{"のみ", "only"}}, // not "だけ": "いただけます"
	{cueAsk, 0, []string{"お問い合わせ", "問い合わせ", "問合せ", "お尋ね", "ご確認", "確認", "スタッフまで", "contact",
		"ask", "inquire", "enquire", "call", "check"}},
	{cueNeutral, 0, []string{"少ない", "少なく", "少なめ", "必要ない", "必要ありません", "不要", "no extra charge",
		"no additional charge", "no charge", "free of charge", "at no cost"}},
	{cueBreak, 0, []string{"。", ".", "!", "?", ";", ":", "/"}},
	{cueComma, 0, []string{"、", ","}},
	{cueCaveat, 0, []string{"ただし", "但し", "※", "なお", "ただ、", "が、", "が,", "けど", "けれど", "ものの", "but",
		"however", "except", "although", "though", "(", "[", "「", "【"}},
	// Closing brackets end the caveat they opened: what follows is the cell's own clause again.
	{cueBreak, 0, []string{")", "]", "」", "】"}},
}

// foldOffer is FoldNFKC for matching: NFKC, lower case, typographic apostrophes as ASCII, a line
// break a full stop, and every run of white space one space.
func foldOffer(s string) string {
	return strings.Join(strings.Fields(offerMarks.Replace(schema.FoldNFKC(s))), " ")
}

// offerMarks are the typographic marks foldOffer reads as others (built on first use).
var offerMarks = strings.NewReplacer("’", "'", "\n", "。")

type token struct {
	start, end int
	cue        cue
	topics     topicSet
}

// tokenize finds the phrases of s, the longest at each place, left to right (textscan.Trie: linear
// in s).
func tokenize(s string) []token { return match(offerTrie(), s) }

// offerValue is what a phrase of offerPhrases says.
type offerValue struct {
	cue    cue
	topics topicSet
}

// match is tokenize with the phrases of trie.
func match(trie *textscan.Trie[offerValue], s string) []token {
	var toks []token
	for _, m := range trie.Match(s) {
		toks = append(toks, token{start: m.Start, end: m.End, cue: m.Value.cue, topics: m.Value.topics})
	}
	return toks
}

var (
	trieOnce  sync.Once
	trieRoot  *textscan.Trie[offerValue]
	limitRoot *textscan.Trie[offerValue]
)

// offerTrie is offerPhrases folded into a byte trie, built once, the limits apart (limitTrie).
func offerTrie() *textscan.Trie[offerValue] {
	trieOnce.Do(func() {
		trieRoot, limitRoot = textscan.NewTrie[offerValue](), textscan.NewTrie[offerValue]()
		seen := map[string]offerValue{} // across both tries
		for _, g := range offerPhrases {
			t, v := trieRoot, offerValue{g.cue, g.topics}
			if g.cue == cueLimit || g.cue == cueOnly {
				t = limitRoot
			}
			for _, w := range g.words {
				w = foldOffer(w)
				if old, ok := seen[w]; ok && old != v {
					panic("schema: offer phrase " + w + " listed twice")
				}
				seen[w] = v
				t.Add(w, v)
			}
		}
	})
	return trieRoot
}

// limitTrie is the limits of offerPhrases in a byte trie.
func limitTrie() *textscan.Trie[offerValue] {
	offerTrie()
	return limitRoot
}
