package price

import (
	"sort"
	"strings"
	"sync"
)

// priceCue is what a phrase of a description says of the amounts beside it.
type priceCue uint8

const (
	pcYen          priceCue = iota + 1 // ¥ JPY 日本円: the amount after it is yen, else the one before
	pcYenAfter                         // 円 yen: the amount before it is yen
	pcLabel                            // 価格 price: the amount after it is money, and the sentence names a price
	pcTaxIn                            // 税込 tax included: of the amount after it, else the one before
	pcTaxOut                           // 税抜 excl. tax: the same, before tax
	pcTaxOutBefore                     // 本体: the amount after it is before tax
	pcTaxOutAfter                      // plus tax: the amount before it is before tax
	pcCondAfter                        // 以上 引き OFF 分 クーポン: the amount before it is not a price
	pcCondBefore                       // 送料 over save: the amount after it is not a price
	pcCondBoth                         // deposit fee: the amounts on either side of it are not prices
	pcRate                             // ごとに につき: the amount before it is a step, the one after a rate
	pcFormerBefore                     // 通常 was: the amount after it is a former price
	pcFormerAfter                      // のところ →: the amount before it is a former price
	pcPartBefore                       // あたり + 追加 extra: the amount after it is a breakdown or an add-on
	pcRange                            // 〜 から to: joins two amounts
	pcList                             // / 、 ・ ,: joins two amounts, and parts them for tax notes
	pcStop                             // 。 ! newline: ends a sentence
	pcQuiet                            // brackets, 約, approx., please: nothing, so its neighbours stay close
	pcNeutral                          // 送料無料 free shipping: read only so that its parts are not
	pcUnread                           // 時価 market price: a price the rule cannot read
	pcAsk                              // お問い合わせ ask: the same, in a sentence that names a price or alone
	pcAskCaps                          // ask: pcUnread in capitals ("ASK"), else pcAsk
)

// pricePhrases is Read's table. Japanese phrases match anywhere, the longest at each place;
// English ones match whole words, case aside, their words apart by a space, '-' or '.'; a final '.'
// is read when it is there ("incl."). reach is how many bytes of other text may lie between a phrase
// and the amount it speaks of: 0 allows only spaces, brackets and other phrases.
var pricePhrases = []struct {
	cue   priceCue
	reach int8
	words []string
}{
	{pcYen, 0, []string{"¥", "￥", "jpy", "日本円"}},
	{pcYenAfter, 0, []string{"円", "yen", "japanese yen"}},
	{pcLabel, 3, []string{"価格", "価格は", "値段", "お値段", "料金", "金額", "代金", "販売価格", "売価",
		"特価", "単価", "当店価格", "店頭価格", "セール価格", "特別価格", "限定価格", "予定価格", "設定価格",
		"固定価格", "price", "prices", "priced", "pricing", "cost", "costs"}},
	{pcTaxIn, 3, []string{"税込", "税込み", "税込価格", "税込み価格", "内税", "消費税込", "消費税込み",
		"税・送料込", "tax included", "tax incl.", "tax inclusive", "tax in", "taxes included", "incl. tax",
		"incl. taxes", "including tax", "including taxes", "inclusive of tax", "after tax"}},
	{pcTaxOut, 3, []string{"税抜", "税抜き", "税抜価格", "税抜き価格", "税別", "税別価格", "外税", "消費税別",
		"別途消費税", "excl. tax", "excl. taxes", "excluding tax", "excluding taxes", "exclusive of tax",
		"tax excluded", "tax excl.", "tax exclusive", "tax not included", "taxes not included", "before tax",
		"pre tax", "pretax", "without tax", "tax extra"}},
	{pcTaxOutBefore, 3, []string{"本体", "本体価格", "本体価格は"}},
	{pcTaxOutAfter, 0, []string{"plus tax", "plus taxes"}}, // and "+税", "+ tax": see priceReader.plus
	{pcCondAfter, 0, []string{"以上", "以下", "未満", "超", "を超える", "ごと", "毎", "ずつ", "分", "相当",
		"お得", "玉", "札", "硬貨", "ショップ", "or more", "worth", "off", "discount", "cashback", "coupon",
		"coupons", "voucher", "vouchers", "points", "value", "spent"}},
	{pcCondAfter, 6, []string{"引き", "引", "割引", "値引", "値引き", "お値引き", "オフ", "還元",
		"キャッシュバック", "クーポン", "安い"}},
	{pcCondBefore, 24, []string{"送料", "送料は", "配送料", "手数料", "容器代", "袋代", "レジ袋", "チャージ",
		"席料", "お通し", "サービス料", "デポジット", "保証金", "postage", "handling", "cover charge",
		"service charge", "table charge"}},
	{pcCondBefore, 8, []string{"over", "above", "more than", "at least", "minimum", "min.", "spend", "spending",
		"orders", "order", "purchase", "purchases", "under", "below", "less than", "save", "saving", "every",
		"最低", "割引額", "ポイント", "最大"}},
	{pcCondBoth, 24, []string{"shipping", "delivery", "deposit", "fee", "fees"}},
	{pcRate, 3, []string{"ごとに", "毎に", "につき"}},
	{pcFormerBefore, 3, []string{"通常", "通常価格", "通常販売価格", "元値", "旧価格", "参考価格", "定価",
		"希望小売価格", "was", "originally", "regular price", "regularly", "usually", "normally", "list price",
		"rrp", "msrp", "reg."}},
	{pcFormerAfter, 0, []string{"のところ", "→", "⇒", "➡", "から値下げ", "より値下げ"}},
	{pcPartBefore, 3, []string{"あたり", "当たり", "プラス", "追加", "別途", "差額", "extra", "add",
		"additional", "plus", "surcharge"}},
	{pcRange, 0, []string{"〜", "–", "—", "―", "−", "から", "より", "to"}},
	{pcList, 0, []string{"、", "・"}},
	{pcStop, 0, []string{"。"}},
	{pcQuiet, 0, []string{"【", "】", "「", "」", "『", "』", "〔", "〕", "約", "およそ", "各", "approx.",
		"approximately", "about", "ca.", "ください", "下さい", "please"}},
	{pcNeutral, 0, []string{"送料無料", "送料込", "送料込み", "送料別", "送料込価格", "手数料無料",
		"チャージ無料", "サービス料込", "引き換え", "引換", "分割", "分け", "自分", "free shipping",
		"free delivery", "shipping included", "delivery included", "no charge"}},
	{pcUnread, 0, []string{"時価", "価格未定", "未定価格", "オープン価格", "オープンプライス", "要問合せ",
		"要問い合わせ", "要お問い合わせ", "価格応相談", "要見積", "要見積もり", "要見積り", "数十円", "数百円",
		"数千円", "数万円", "market price", "open price", "price on request", "price upon request",
		"prices on request", "price on application", "poa", "price tbd", "price tba", "price varies",
		"prices vary", "ask for price", "ask for prices", "ask for pricing", "call for price",
		"call for pricing", "contact for price"}},
	{pcAsk, 0, []string{"お問い合わせ", "問い合わせ", "問合せ", "問合わせ", "お問合せ", "お尋ね", "店頭にて",
		"店頭で", "店頭", "未定", "応相談", "要相談", "相談", "見積", "お見積り", "変動", "異なります",
		"異なる", "要確認", "ご確認", "確認", "inquire", "enquire", "contact", "call", "varies", "vary", "tbd",
		"tba", "request", "depends"}},
	{pcAskCaps, 0, []string{"ask"}},
}

// pricePhrase is one phrase of the table as the reader matches it.
type pricePhrase struct {
	text  string   // Japanese: the phrase
	rest  []string // English: the words after the first
	size  int      // its length, by which a group is ordered: the longest first
	dot   bool     // English: a '.' after it is part of it
	cue   priceCue
	reach int8
}

// priceIndex finds the table's phrases: English ones by their first word, found by its first two
// letters; Japanese ones by their first character. Each group is longest first.
type priceIndex struct {
	pairs   [1 << 10]uint16 // [pairOf(a, b)]: bit n says a first word "ab…" has n letters
	ends    [1 << 10]uint16 // [pairOf(a, z)]: bit n says a first word "a…z" has n letters
	byPair  [1 << 10][2]uint16
	firsts  []priceFirstWord // by pair: firsts[byPair[p][0]:byPair[p][1]]
	phrases []pricePhrase
	first   [1 << 10]uint64 // bit r: a Japanese phrase starts with rune r (< 1<<16)
	runes   [256]rune       // those runes, by runeSlot
	byRune  [256][2]uint16  // their phrases: phrases[from:to]
}

// priceFirstWord is the first word of English phrases, and their place in priceIndex.phrases.
type priceFirstWord struct {
	word     string
	from, to uint16
}

var (
	priceOnce sync.Once
	priceIx   *priceIndex
)

// priceTable is pricePhrases indexed, built once.
func priceTable() *priceIndex {
	priceOnce.Do(func() { priceIx = buildPriceIndex() })
	return priceIx
}

func buildPriceIndex() *priceIndex {
	ix := &priceIndex{}
	english := map[string][]pricePhrase{}
	japanese := map[rune][]pricePhrase{}
	seen := map[string]bool{}
	for _, g := range pricePhrases {
		for _, w := range g.words {
			if seen[w] {
				panic("schema: price phrase " + w + " listed twice")
			}
			seen[w] = true
			p := pricePhrase{cue: g.cue, reach: g.reach, size: len(w)}
			if c := w[0]; c >= 'a' && c <= 'z' {
				p.dot = strings.HasSuffix(w, ".")
				words := strings.Fields(strings.ReplaceAll(w, ".", " "))
				if first := words[0]; len(first) < 2 || len(first) > maxPriceWord {
					panic("schema: price phrase " + w + " starts with a word too short or too long")
				}
				p.rest = words[1:]
				english[words[0]] = append(english[words[0]], p)
				continue
			}
			p.text = w
			r := []rune(w)[0]
			japanese[r] = append(japanese[r], p)
		}
	}
	longest := func(ps []pricePhrase) {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].size > ps[j].size })
	}
	var firsts []string
	for w := range english {
		firsts = append(firsts, w)
	}
	sort.Slice(firsts, func(i, j int) bool {
		pi, pj := pairOf(firsts[i][0], firsts[i][1]), pairOf(firsts[j][0], firsts[j][1])
		return pi < pj || pi == pj && firsts[i] < firsts[j]
	})
	for _, w := range firsts {
		ps := english[w]
		longest(ps)
		p := pairOf(w[0], w[1])
		ix.pairs[p] |= 1 << len(w)
		ix.ends[pairOf(w[0], w[len(w)-1])] |= 1 << len(w)
		if ix.byPair[p][1] == 0 {
			ix.byPair[p][0] = uint16(len(ix.firsts))
		}
		ix.firsts = append(ix.firsts, priceFirstWord{w, uint16(len(ix.phrases)), uint16(len(ix.phrases) + len(ps))})
		ix.byPair[p][1] = uint16(len(ix.firsts))
		ix.phrases = append(ix.phrases, ps...)
	}
	for r, ps := range japanese {
		if r >= 1<<16 {
			panic("schema: price phrase beyond the BMP")
		}
		longest(ps)
		ix.first[r>>6] |= 1 << (r & 63)
		h := runeSlot(r)
		for ix.runes[h] != 0 {
			h = (h + 1) % len(ix.runes)
		}
		ix.runes[h], ix.byRune[h] = r, [2]uint16{uint16(len(ix.phrases)), uint16(len(ix.phrases) + len(ps))}
		ix.phrases = append(ix.phrases, ps...)
	}
	return ix
}

// pairOf is the index in priceIndex.pairs and ends of a word's two letters, either case.
func pairOf(a, b byte) int { return (int(a)<<5 | int(b&31)) & (1<<10 - 1) }

// maxPriceWord is the longest first word of an English phrase: a longer word is none.
const maxPriceWord = len("approximately")

// mayStart reports, cheaply, whether the word of n ASCII letters at s[i:] might start an English
// phrase: most words do not, which their first, second and last letters and length say.
func (ix *priceIndex) mayStart(s string, i, n int) bool {
	return n >= 2 && n <= maxPriceWord && ix.pairs[pairOf(s[i], s[i+1])]&(1<<n) != 0 &&
		ix.ends[pairOf(s[i], s[i+n-1])]&(1<<n) != 0
}

// english finds the phrases whose first word is w, letters in either case.
func (ix *priceIndex) english(w string) []pricePhrase {
	g := ix.byPair[pairOf(w[0], w[1])]
	for k := g[0]; k < g[1]; k++ {
		if f := &ix.firsts[k]; len(f.word) == len(w) && equalFoldASCII(w, f.word) {
			return ix.phrases[f.from:f.to]
		}
	}
	return nil
}

// equalFoldASCII reports whether the letters of s are those of lower, in either case.
func equalFoldASCII(s, lower string) bool {
	for k := 0; k < len(s); k++ {
		if s[k]|0x20 != lower[k] {
			return false
		}
	}
	return true
}

// japanese finds the phrases that start with r.
func (ix *priceIndex) japanese(r rune) []pricePhrase {
	if r >= 1<<16 || ix.first[r>>6]&(1<<(r&63)) == 0 {
		return nil
	}
	for h := runeSlot(r); ; h = (h + 1) % len(ix.runes) {
		switch ix.runes[h] {
		case r:
			g := ix.byRune[h]
			return ix.phrases[g[0]:g[1]]
		case 0:
			return nil
		}
	}
}

// runeSlot is a rune's first slot in priceIndex.runes.
func runeSlot(r rune) int { return int(uint32(r) * 0x9E3779B9 >> 24) }

// foldedWord is the word at s[i:] with full-width letters in it, as ASCII letters; end is where it
// ends. A word of more letters than any phrase's first is returned cut.
func foldedWord(s string, i int) (w string, end int) {
	var b [maxPriceWord + 1]byte
	n := 0
	for i < len(s) {
		c, cw := s[i], 1
		if c >= 0x80 {
			if c, cw = fullWidthLetter(s, i); cw == 0 {
				break
			}
		} else if !isASCIILetter(c) {
			break
		}
		if n < len(b) {
			b[n] = c
			n++
		}
		i += cw
	}
	return string(b[:n]), i
}

// nextWord is the word after s[:i], apart from it by a space, '-' or '.' (up to three of them), and
// where it ends; "" if there is none.
func nextWord(s string, i int) (w string, end int) {
	j := i
	for j < len(s) && j-i < 3 && (s[j] == ' ' || s[j] == '-' || s[j] == '.') {
		j++
	}
	if j == i {
		return "", i
	}
	end = j
	for end < len(s) && isASCIILetter(s[end]) {
		end++
	}
	return s[j:end], end
}

// restAt is where the words rest (in lower case) end if they follow s[:i], each after a space, '-'
// or '.' (up to three of them) and ending a word; -1 if they do not.
func restAt(s string, i int, rest []string) int {
	for _, w := range rest {
		j := i
		for j < len(s) && j-i < 3 && (s[j] == ' ' || s[j] == '-' || s[j] == '.') {
			j++
		}
		if j == i || len(s)-j < len(w) {
			return -1
		}
		for k := 0; k < len(w); k++ {
			if s[j+k]|0x20 != w[k] {
				return -1
			}
		}
		i = j + len(w)
		if i < len(s) && isASCIILetter(s[i]) {
			return -1
		}
	}
	return i
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// fullWidthLetter is the full-width Latin letter at s[i] as ASCII, and its width; w is 0 if none.
func fullWidthLetter(s string, i int) (c byte, w int) {
	if i+2 < len(s) && s[i] == 0xEF {
		switch b := s[i+2]; {
		case s[i+1] == 0xBC && b >= 0xA1 && b <= 0xBA: // Ａ-Ｚ
			return 'A' + b - 0xA1, 3
		case s[i+1] == 0xBD && b >= 0x81 && b <= 0x9A: // ａ-ｚ
			return 'a' + b - 0x81, 3
		}
	}
	return 0, 0
}
