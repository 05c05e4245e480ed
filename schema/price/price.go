// Package price reads what a product's description says a visitor pays, in yen (Read, Yen): the
// products_typed view's price columns, which ingest computes for every description
// (migrations/derive.go). The phrase table is in phrases.go; the reader's pass over the text in
// read.go, its amounts in amount.go, and which of them remain in result.go.
package price

import "github.com/azabudai/ctool/schema/internal/textscan"

// Price is what a product description says a visitor pays, in yen: products_typed.price_yen is Low
// and price_max_yen is High when it differs from Low.
type Price struct {
	Low, High int32 // the lowest and the highest price listed; equal when one is
	OK        bool  // the description names at least one price a visitor pays
	Unread    bool  // it holds a price the rule could not read: 時価, "ask", an ambiguous amount
}

// maxPriceBytes bounds the text Read reads of a description: a product's prices are in its
// first few sentences, and a cell of megabytes (the data is anyone's) must cost no more than this.
const maxPriceBytes = 4096

// Read reads the prices a product description names, in one pass over at most maxPriceBytes
// of it, with the phrases of pricePhrases. Ingest runs it on every description of the products file.
//
// Money: an amount with a currency beside it: ¥ ￥ JPY 日本円 before or after it ("\" before digits
// too: the yen sign of Shift_JIS), 円 or "yen" after it; or, when only punctuation follows it, a
// price word before it ("価格：1,200", "Price: 1200") or a tax note beside it ("1,200（税込）").
// Counts, years, times, phone numbers and sizes ("1日10食限定", "2025年", "11:00〜14:00",
// "03-1234-5678", "2名様〜") have none. Amounts joined by a range or list sign share a currency and
// a scale: "1,000〜2,000円", "¥1,000-2,000", "500/600/700円", "1〜2万円", "2〜3,000円" (2,000).
//
// Digits: ASCII or full-width. ',' and '，' group thousands before three digits ("12,000",
// "１，２００"); '、' only before three that start with 0 ("1、000円"): elsewhere it may list, and
// "1、500円" is refused. "1.2万円", "1万円", "1万2千円", "3千円" are read; kanji numerals alone
// ("千円") are not, for "百円ショップ" and "関東一円" are names.
//
// Not prices, read and dropped: thresholds and conditions ("3,000円以上のお買い上げで", "orders
// over ¥3,000", "100円ごとに"), discounts ("500円引き", "500円OFF", "save ¥300"), values given
// ("1,000円分のクーポン", "3,000円相当", "¥500 coupon"), fees not the product's ("送料500円",
// "shipping ¥800", "容器代10円", "¥500 deposit"), coins and names ("500円玉", "100円ショップ").
// Read only when no other price remains: former prices ("通常1,200円のところ", "定価1,200円 →",
// "was ¥1,200", "~~¥2,000~~"), breakdowns and rates ("1個あたり250円", "延長30分ごとに400円"),
// add-ons ("大盛り+100円", "別途300円"). "送料込み" and "送料無料" are notes, not fees.
//
// Tax: a pre-tax price (本体, 税抜, 税別, ＋税, plus tax, excl. tax) gives way to the tax-included
// one of the same item: one marked so (税込, tax included) and 5 to 10 per cent above it, or an
// unmarked one so next to it. "本体1,900円＋税（税込2,090円）" is 2,090, "1,000円（税込1,100円）"
// 1,100; a pre-tax price alone counts as written.
//
// Low and High are the lowest and highest of what remains: sizes, sets and ranges ("S 500円 / M
// 600円", "1,000〜2,000円") give both, "1,000円〜" one. OK is false when nothing remains.
//
// Unread says the text holds a price the rule could not read: 時価, オープン価格, 価格未定, 要問合せ,
// 数千円, "market price", "price on request", "ASK" in capitals; an invitation to ask (お問い合わせ,
// 店頭にて, "ask", "varies") in a sentence that names the price, or that is all the text says; an
// amount with a currency refused as ambiguous, malformed or too large ("1、500円", "1,00円", "¥1.5",
// "2147483648円"); a blank "〇〇円". Text without price words has neither; other currencies ("$12")
// are not read and not marked.
func Read(description string) Price {
	var r priceReader
	r.read(textscan.Clip(description, maxPriceBytes))
	return r.result()
}

// Yen is Read's Low and OK: products_typed.price_yen, the lowest price a visitor pays.
func Yen(description string) (yen int32, ok bool) {
	p := Read(description)
	return p.Low, p.OK
}
