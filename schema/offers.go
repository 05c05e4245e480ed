package schema

import (
	"strings"
	"sync"
)

// Offers are the yes/no columns stores_typed reads from a store's free text: each says whether the
// text says the store offers something (vegan dishes, step-free access, a nursing room). The rule is
// ReadOffer with the phrase table below; ingest computes it for every store (migrations/derive.go),
// and its precision and recall on a corpus of cells are in docs/data.md (schema/testdata/offers.tsv).

// Offer is what a cell says of one offer.
type Offer int8

const (
	OfferUnknown Offer = iota // the cell is empty or says neither: NULL
	OfferYes                  // offered, perhaps with a condition (a reservation, some items, shared equipment)
	OfferNo                   // not offered, or difficult
)

// Topic is one offer: the stores_typed column that holds it and the stores column it is read from.
type Topic struct {
	Column, Source string
	bit            topicSet
	dietary        bool // about food: a cell of its column is about it unless it names another topic only
}

type topicSet uint8

const (
	vegan topicSet = 1 << iota
	halal
	glutenFree
	wheelchair
	nursing
	allergy // named only so that a cell about allergies is not read as about a diet
)

// Topics lists the offers, in the order of their stores_typed columns.
var Topics = []Topic{
	{Column: "vegan_available", Source: "vegan_info", bit: vegan, dietary: true},
	{Column: "halal_available", Source: "halal_info", bit: halal, dietary: true},
	{Column: "gluten_free_available", Source: "gluten_free_info", bit: glutenFree, dietary: true},
	{Column: "wheelchair_accessible", Source: "accessibility", bit: wheelchair},
	{Column: "nursing_room_available", Source: "nursing_room", bit: nursing},
}

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
		"ベジタリアン", "vegetarian", "精進", "豆乳", "ソイミルク", "soy milk", "oat milk", "オーツミルク", "アーモンドミルク",
		"almond milk", "植物性", "plant-based milk", "plant milk", "植物性ミルク"}},
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

// maxOfferBytes bounds the text ReadOffer reads of a cell: a store's note is a few sentences, and a
// cell of megabytes (the data is anyone's) must cost no more than this.
const maxOfferBytes = 4096

// ReadOffer says what cell, a store's text in t's Source column, says of t's offer. Its reading:
//
//   - The text is split into clauses at full stops, commas, colons and the like. A clause that starts
//     with "ただし", "but", "が、", a bracket and the like is a caveat.
//   - A clause counts if it names the topic (or, for wheelchair_accessible, a step or stairs), or, in a
//     food column, names no other topic: "要予約" in vegan_info is about vegan dishes; "グルテンフリー対応"
//     there is not.
//   - In a clause, the last offer or refusal decides ("対応しておりません", "車椅子でのご来店は困難です"); a
//     Japanese negation after an ingredient or a step says it is absent ("卵・乳不使用", "段差なし"), as
//     "no" or "without" before one does; an English negation turns every offer after it in the clause
//     into a refusal ("not wheelchair accessible").
//   - The first clause that decides so decides the cell, the caveats last: "車椅子対応。ただし2階は階段
//     のみ" is true, "ヴィーガン対応はしておりませんが、野菜のサラダはございます" false.
//   - Failing that, a condition ("要予約", "on request", "shared fryer") is true, a barrier or an
//     ingredient the food contains ("階段のみ", "小麦を含みます") false, and a mention of the topic true.
//   - An invitation to ask ("お問い合わせください") says neither: NULL.
func ReadOffer(t Topic, cell string) Offer {
	toks := tokenize(foldOffer(clipText(cell, maxOfferBytes)))
	var (
		strong       Offer // the first deciding clause's verdict
		strongCaveat Offer // the same, among caveats
		hedge, neg   bool
		mention      bool
	)
	follows := false // the clause before was about t
	for _, cl := range clauses(toks) {
		v, about := readClause(t, cl.toks, follows)
		follows = about
		switch {
		case v.strong != OfferUnknown && !cl.caveat && strong == OfferUnknown:
			strong = v.strong
		case v.strong != OfferUnknown && cl.caveat && strongCaveat == OfferUnknown:
			strongCaveat = v.strong
		}
		hedge, neg, mention = hedge || v.hedge, neg || v.weakNeg, mention || v.mention
	}
	switch {
	case strong != OfferUnknown:
		return strong
	case strongCaveat != OfferUnknown:
		return strongCaveat
	case hedge:
		return OfferYes
	case neg:
		return OfferNo
	case mention:
		return OfferYes
	}
	return OfferUnknown
}

// foldOffer is FoldNFKC for matching: NFKC, lower case, typographic apostrophes as ASCII, a line
// break a full stop, and every run of white space one space.
func foldOffer(s string) string {
	return strings.Join(strings.Fields(offerMarks.Replace(FoldNFKC(s))), " ")
}

// offerMarks are the typographic marks foldOffer reads as others (built on first use).
var offerMarks = strings.NewReplacer("’", "'", "\n", "。")

type token struct {
	start, end int
	cue        cue
	topics     topicSet
}

// tokenize finds the phrases of s, the longest at each place, left to right. Each place tries the
// trie's paths from it, at most the longest phrase's length, so the work is linear in s.
func tokenize(s string) []token {
	root := offerTrie()
	var toks []token
	for i := 0; i < len(s); {
		n, best, bestEnd := root, (*trieNode)(nil), 0
		for j := i; j < len(s); j++ {
			if n = n.next[s[j]]; n == nil {
				break
			}
			if n.leaf && wordEnds(s, i, j+1, n.ascii) {
				best, bestEnd = n, j+1
			}
		}
		if best == nil {
			i += runeLen(s[i])
			continue
		}
		toks = append(toks, token{start: i, end: bestEnd, cue: best.cue, topics: best.topics})
		i = bestEnd
	}
	return toks
}

// wordEnds reports whether s[i:j] may be a phrase there: one of ASCII letters must be a whole word (an
// "s" may follow it).
func wordEnds(s string, i, j int, ascii bool) bool {
	if !ascii {
		return true
	}
	if i > 0 && isWordByte(s[i-1]) {
		return false
	}
	if j < len(s) && s[j] == 's' {
		j++
	}
	return j >= len(s) || !isWordByte(s[j])
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

func runeLen(b byte) int {
	switch {
	case b < 0xc0:
		return 1
	case b < 0xe0:
		return 2
	case b < 0xf0:
		return 3
	}
	return 4
}

type clause struct {
	toks   []token
	caveat bool
}

// clauses splits tokens at the breaks.
func clauses(toks []token) []clause {
	var out []clause
	cur := clause{}
	for _, t := range toks {
		switch t.cue {
		case cueBreak, cueComma, cueCaveat:
			if len(cur.toks) > 0 {
				out = append(out, cur)
			}
			// A caveat runs to the next full stop or closing bracket: "ただし2階は、階段のみ".
			cur = clause{caveat: t.cue == cueCaveat || (cur.caveat && t.cue == cueComma)}
		default:
			cur.toks = append(cur.toks, t)
		}
	}
	if len(cur.toks) > 0 {
		out = append(out, cur)
	}
	return out
}

// verdict is one clause's reading.
type verdict struct {
	strong         Offer
	hedge, weakNeg bool
	mention        bool
}

// near is how many bytes may lie between an ingredient or a step and the negation that reads it:
// a particle or two ("卵は一切", "段差の").
const near = 12

// readClause reads one clause. A clause that names no topic continues the one before it: follows says
// whether that one was about t ("授乳室: なし", "段差あり。スタッフがお手伝いします"). about says whether
// this one is.
func readClause(t Topic, toks []token, follows bool) (v verdict, about bool) {
	var names, other, ingredient, barrier bool
	for _, k := range toks {
		switch {
		case k.cue == cueTopic && k.topics&t.bit != 0:
			names = true
		case k.cue == cueTopic:
			other = true
		case k.cue == cueIngredient && k.topics&t.bit != 0:
			ingredient = true
		case (k.cue == cueBarrier || k.cue == cueBarrierNeg || k.cue == cueFreeOf) && t.bit == wheelchair && k.topics&wheelchair != 0:
			barrier = true
		}
	}
	silent := !names && !other && !barrier
	if !(names || barrier || (t.dietary && (ingredient || !other)) || (silent && follows)) {
		return verdict{}, false
	}
	var negScope, decided, ask bool
	barriers := 0
	set := func(o Offer) {
		if negScope && o == OfferYes {
			o = OfferNo
		}
		v.strong, decided = o, true
	}
	// before is the token that ends within near bytes before toks[i], if any.
	before := func(i int) *token {
		if i > 0 && toks[i].start-toks[i-1].end <= near {
			return &toks[i-1]
		}
		return nil
	}
	after := func(i int) *token {
		if i+1 < len(toks) && toks[i+1].start-toks[i].end <= 2 {
			return &toks[i+1]
		}
		return nil
	}
	mine := func(k *token, c cue) bool { return k != nil && k.cue == c && k.topics&t.bit != 0 }
	for i := range toks {
		k := toks[i]
		switch k.cue {
		case cueTopic:
			if k.topics&t.bit != 0 {
				v.mention = true
				if negScope {
					set(OfferNo)
				}
			}
		case cueBarrier:
			if t.bit == wheelchair {
				barriers++
			}
		case cuePos:
			switch b := before(i); {
			case t.dietary && mine(b, cueIngredient):
				v.weakNeg = true // "豚肉料理あり", "pork is served": the food has it
			case mine(b, cueBarrier):
				v.weakNeg = true // "階段があり": the step is there
			default:
				set(OfferYes)
			}
		case cueFreeOf:
			if k.topics&t.bit != 0 {
				set(OfferYes)
			}
		case cueNegAfter:
			switch b := before(i); {
			case mine(b, cueIngredient):
				set(OfferYes)
			case mine(b, cueBarrier):
				barriers--
				set(OfferYes)
			case b != nil && b.cue == cueIngredient:
				// another diet's ingredient is absent: nothing of this one
			default:
				v.strong, decided = OfferNo, true
			}
		case cueAbsent:
			if mine(before(i), cueIngredient) || (mine(after(i), cueIngredient)) {
				set(OfferYes)
			}
		case cueContains:
			if mine(before(i), cueIngredient) || mine(after(i), cueIngredient) {
				v.weakNeg = true
			}
		case cueNegBefore:
			negScope = true
		case cueNo:
			switch a := after(i); {
			case mine(a, cueIngredient):
				set(OfferYes)
			case mine(a, cueBarrier):
				barriers--
				set(OfferYes)
			default:
				negScope = true
			}
		case cueNegWord:
			v.strong, decided = OfferNo, true
		case cueBarrierNeg:
			if t.bit == wheelchair {
				v.weakNeg = true
			}
		case cueHedge:
			v.hedge = true
		case cueAsk:
			ask = true
		}
	}
	if negScope && !decided {
		v.strong = OfferNo // "vegan: no", "not at this time"
	}
	if barriers > 0 {
		v.weakNeg = true
	}
	if ask {
		v.mention = false // "車椅子の方はお問い合わせください" says neither
	}
	return v, true
}

type trieNode struct {
	next   map[byte]*trieNode
	leaf   bool
	ascii  bool // a phrase of ASCII letters: matches whole words only
	cue    cue
	topics topicSet
}

var (
	trieOnce sync.Once
	trieRoot *trieNode
)

// offerTrie is offerPhrases folded into a byte trie, built once.
func offerTrie() *trieNode {
	trieOnce.Do(func() {
		trieRoot = &trieNode{next: map[byte]*trieNode{}}
		for _, g := range offerPhrases {
			for _, w := range g.words {
				w = foldOffer(w)
				n := trieRoot
				for i := 0; i < len(w); i++ {
					c := n.next[w[i]]
					if c == nil {
						c = &trieNode{next: map[byte]*trieNode{}}
						n.next[w[i]] = c
					}
					n = c
				}
				if n.leaf && (n.cue != g.cue || n.topics != g.topics) {
					panic("schema: offer phrase " + w + " listed twice")
				}
				n.leaf, n.cue, n.topics = true, g.cue, g.topics
				n.ascii = w[0] >= 'a' && w[0] <= 'z'
			}
		}
	})
	return trieRoot
}
