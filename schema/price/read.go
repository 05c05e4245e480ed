package price

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// maxPriceAmounts bounds the amounts Read keeps of a description: a menu of more is read up to
// there.
const maxPriceAmounts = 16

// A priceFlag says something of one amount.
type priceFlag uint16

const (
	pfYen     priceFlag = 1 << iota // money: a currency beside it, or inherited over a range
	pfRefused                       // malformed, ambiguous or too large: never a price, Unread if money
	pfMan                           // scaled by 万
	pfSen                           // scaled by 千
	pfIn                            // tax included
	pfOut                           // before tax
	pfNot                           // not a price: a threshold, discount, value or fee
	pfAside                         // a former price, a breakdown or an add-on
	pfLinked                        // a range or list sign joins it to the next amount
	pfMoney                         // (pending only) pfYen if the amount is bare
)

type priceAmount struct {
	yen   int32
	flags priceFlag
	part  uint16 // which part of the text it is in, parts being parted by list signs and sentences
	junk  int32  // priceReader.junk at its end
	end   int32  // where its digits end in the text
}

// pricePending is a phrase waiting for the amount after it.
type pricePending struct {
	flags    priceFlag
	deadline int32 // the last priceReader.junk at which it applies
}

// priceReader reads a description once, left to right, keeping its amounts and what the phrases
// beside them say; result then decides.
type priceReader struct {
	s        string
	ix       *priceIndex
	amts     [maxPriceAmounts]priceAmount
	n        int
	last     int   // the amount in this sentence that phrases after it speak of; -1 if none
	lastEnd  int   // where that amount's digits end
	junk     int32 // bytes read that are neither phrase nor amount, in which reach is measured
	part     uint16
	pending  [4]pricePending
	npending int
	linkFrom int // the amount a range or list sign follows, waiting for the next; -1 if none

	struck         bool // between the "~~" that strike text through
	priceWord, ask bool // this sentence names the price; it has an invitation to ask
	askAny         bool // some sentence has one
	content        bool // the text has something besides phrases
	unread         bool
}

// partGap is added to junk at a list sign or a sentence's end, so that no reach spans one.
const partGap = 1 << 12

func (r *priceReader) read(s string) {
	ix := priceTable()
	r.s, r.ix, r.last, r.linkFrom = s, ix, -1, -1
	for i := 0; i < len(s); {
		switch c := priceClass[s[i]]; {
		case c == classLetter:
			// Most words start no phrase: their letters and length say so, cheaply.
			j := wordEnd(s, i+1)
			if ix.mayStart(s, i, j-i) || j < len(s) && s[j] == 0xEF { // or full-width letters go on
				i = r.word(i, j)
			} else {
				r.junk += int32(j - i)
				r.content = true
				i = j
			}
			if i < len(s) && s[i] == ' ' { // the space after a word, read here to keep the branches steady
				i++
			}
		case c == classSpace:
			i++
		case c == classDigit:
			i = r.number(i)
		case c == classPunct:
			i = r.punct(i, s[i], 1)
		default:
			// Most kana and kanji start no phrase: one bit of ix.first says so, read here.
			if b := s[i]; b >= 0xE3 && b <= 0xE9 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
				c := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				if c != '\u3000' && ix.first[c>>6]&(1<<(c&63)) == 0 {
					r.junk += 3
					r.content = true
					i += 3
					continue
				}
			}
			i = r.other(i)
		}
	}
}

// wordEnd is where the run of ASCII letters at s[i:] ends. It reads eight bytes at a time, so that
// a word's end costs no mispredicted branch.
func wordEnd(s string, i int) int {
	const (
		high  = 0x8080808080808080
		lower = 0x2020202020202020
	)
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		y := (x | lower) &^ high
		// Per byte, with no carry between bytes: at least 'a', and beyond 'z'.
		letter := (y + 0x1F1F1F1F1F1F1F1F) &^ (y + 0x0505050505050505) &^ x & high
		if other := ^letter & high; other != 0 {
			return i + bits.TrailingZeros64(other)/8
		}
	}
	for i < len(s) && isASCIILetter(s[i]) {
		i++
	}
	return i
}

// The classes of bytes, which read dispatches on.
const (
	classPunct = iota // other ASCII
	classLetter
	classDigit
	classSpace
	classHigh // part of a character beyond ASCII
)

var priceClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case isASCIILetter(byte(c)):
			t[c] = classLetter
		case c >= '0' && c <= '9':
			t[c] = classDigit
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			t[c] = classSpace
		case c >= 0x80:
			t[c] = classHigh
		}
	}
	return t
}()

// word reads the word at s[i:end]: a phrase of the table, or other text.
func (r *priceReader) word(i, end int) int {
	s := r.s
	w := s[i:end]
	if _, fw := fullWidthLetter(s, end); fw > 0 || end == i {
		w, end = foldedWord(s, i) // full-width letters: the slow way
	}
	if len(w) >= 2 && len(w) <= maxPriceWord {
		ps := r.ix.english(w)
		next, nextEnd := "", -1 // the word after, read once if a phrase goes on
		for k := range ps {
			p := &ps[k]
			e := end
			if len(p.rest) > 0 {
				if nextEnd < 0 {
					next, nextEnd = nextWord(s, end)
				}
				if len(next) != len(p.rest[0]) || !equalFoldASCII(next, p.rest[0]) {
					continue
				}
				if e = restAt(s, nextEnd, p.rest[1:]); e < 0 {
					continue
				}
			}
			if p.dot && e < len(s) && s[e] == '.' {
				e++
			}
			cue := p.cue
			if cue == pcAskCaps {
				cue = pcAsk
				if allCaps(w) {
					cue = pcUnread // "ASK", where a menu puts a price
				}
			}
			r.on(cue, p.reach, i, e)
			return e
		}
	}
	r.junk += int32(end - i)
	r.content = true
	return end
}

// allCaps reports whether the letters of w are all capitals.
func allCaps(w string) bool {
	for k := 0; k < len(w); k++ {
		if w[k] >= 'a' {
			return false
		}
	}
	return true
}

// other reads the character at s[i], which is not ASCII.
func (r *priceReader) other(i int) int {
	s := r.s
	var c rune
	var w int
	switch b := s[i]; {
	case b >= 0xE0 && b < 0xF0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80:
		c, w = rune(b&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3 // kana, kanji, full-width forms
	case b >= 0xC2 && b < 0xE0 && i+1 < len(s) && s[i+1]&0xC0 == 0x80:
		c, w = rune(b&0x1F)<<6|rune(s[i+1]&0x3F), 2 // ¥
	default:
		c, w = utf8.DecodeRuneInString(s[i:])
	}
	switch {
	case c == '\u3000' || c == '\u00a0':
		return i + w
	case c >= 0xFF10 && c <= 0xFF19: // full-width digits
		return r.number(i)
	case c >= 0xFF21 && c <= 0xFF3A || c >= 0xFF41 && c <= 0xFF5A:
		return r.word(i, i)
	case c >= 0xFF01 && c <= 0xFF5E: // full-width punctuation, read as its ASCII
		return r.punct(i, byte(c-0xFEE0), w)
	}
	for _, p := range r.ix.japanese(c) {
		if strings.HasPrefix(s[i:], p.text) {
			end := i + len(p.text)
			r.on(p.cue, p.reach, i, end)
			return end
		}
	}
	r.junk += int32(w)
	r.content = true
	return i + w
}

// punct reads ASCII punctuation c, w bytes at s[i] (3 for its full-width form).
func (r *priceReader) punct(i int, c byte, w int) int {
	end := i + w
	switch c {
	case '\n', '!', '?', ';':
		r.sentence()
	case '.':
		if end >= len(r.s) || r.s[end] == ' ' || r.s[end] == '\n' {
			r.sentence()
		} else {
			r.junk++
		}
	case ',', '/', '|':
		r.on(pcList, 0, i, end)
	case '~', '-':
		if c == '~' && end < len(r.s) && r.s[end] == '~' {
			r.struck = !r.struck // "~~¥2,000~~": struck through, a former price
			return end + 1
		}
		r.on(pcRange, 0, i, end)
	case '(', ')', '[', ']', ':', '=':
	case '+':
		return r.plus(i, end)
	case '\\':
		if _, dw := digitAt(r.s, end); dw > 0 {
			r.on(pcYen, 0, i, end) // the yen sign of Shift_JIS, as text scraped from it shows it
		} else {
			r.junk++
		}
	default:
		r.junk += int32(w)
		r.content = true
	}
	return end
}

// plus reads what follows a '+' ending at i: "+税", "+ tax" put the amount before it before tax; else
// the amount after it is an add-on ("大盛り+100円").
func (r *priceReader) plus(start, i int) int {
	j := skipBlank(r.s, i)
	for _, t := range plusTax {
		end := j + len(t)
		if strings.HasPrefix(r.s[j:], t) && (end == len(r.s) || !isASCIILetter(r.s[end])) {
			r.on(pcTaxOutAfter, 0, start, end)
			return end
		}
	}
	r.on(pcPartBefore, 0, start, i)
	return i
}

var plusTax = []string{"消費税", "税", "tax", "TAX", "Tax"}

// on applies a phrase, s[start:end], to the amounts beside it.
func (r *priceReader) on(cue priceCue, reach int8, start, end int) {
	switch cue {
	case pcYen:
		j := skipBlank(r.s, end)
		if _, w := digitAt(r.s, j); w > 0 {
			// Glued to the amount before and apart from the one after ("1000¥ 2名"), it is the former's.
			if r.last >= 0 && r.lastEnd == start && j > end && r.amts[r.last].flags&pfYen == 0 {
				r.amts[r.last].flags |= pfYen
			} else {
				r.pend(pfYen, 0)
			}
		} else if r.tight(0) {
			r.amts[r.last].flags |= pfYen
		}
	case pcYenAfter:
		if r.tight(0) {
			r.amts[r.last].flags |= pfYen
		} else if placeholderBefore(r.s, start) {
			r.unread = true // "〇〇円", "?円": a price left blank
		}
	case pcLabel:
		r.priceWord = true
		r.pend(pfMoney, reach)
	case pcTaxIn, pcTaxOut, pcTaxOutBefore, pcTaxOutAfter:
		f := pfOut | pfMoney
		if cue == pcTaxIn {
			f = pfIn | pfMoney
		}
		// A note before an amount is that amount's ("税込1,100円"); after one, the one before's.
		forward := cue == pcTaxOutBefore
		if cue == pcTaxIn || cue == pcTaxOut {
			_, w := digitAt(r.s, skipLead(r.s, end))
			forward = w > 0
		}
		switch {
		case forward:
			r.pend(f, reach)
		case r.last >= 0:
			r.mark(r.last, f)
		}
	case pcCondAfter:
		if r.tight(reach) {
			r.mark(r.last, pfNot)
		}
	case pcCondBefore:
		r.pend(pfNot, reach)
	case pcCondBoth:
		if r.tight(0) {
			r.mark(r.last, pfNot) // "¥500 deposit"
		}
		r.pend(pfNot, reach)
	case pcRate:
		if r.tight(0) {
			r.mark(r.last, pfNot) // "100円ごとに": a step
		}
		r.pend(pfAside, reach) // "延長30分ごとに400円": a rate beside the price
	case pcFormerAfter:
		if r.tight(reach) {
			r.mark(r.last, pfAside)
		}
	case pcFormerBefore, pcPartBefore:
		r.pend(pfAside, reach)
	case pcRange:
		r.link(end)
	case pcList:
		r.link(end)
		r.part++
		r.junk += partGap
	case pcStop:
		r.sentence()
	case pcNeutral:
		r.junk += int32(end - start)
		r.content = true
	case pcUnread:
		r.unread = true
	case pcAsk:
		r.ask = true
	}
}

// tight reports whether the amount before is at most reach bytes of other text back.
func (r *priceReader) tight(reach int8) bool {
	return r.last >= 0 && r.junk-r.amts[r.last].junk <= int32(reach)
}

func (r *priceReader) mark(i int, f priceFlag) {
	a := &r.amts[i]
	if f&pfMoney != 0 && bareAfter(r.s, int(a.end)) {
		a.flags |= pfYen
	}
	a.flags |= f &^ pfMoney
}

// pend keeps flags for the amount after, if it comes within reach.
func (r *priceReader) pend(f priceFlag, reach int8) {
	if r.npending == len(r.pending) {
		copy(r.pending[:], r.pending[1:])
		r.npending--
	}
	r.pending[r.npending] = pricePending{f, r.junk + int32(reach)}
	r.npending++
}

// link joins the amount before to the one after, when a range or list sign at s[:i] is all that
// lies between them.
func (r *priceReader) link(i int) {
	if !r.tight(0) {
		return
	}
	if _, w := digitAt(r.s, skipLead(r.s, i)); w > 0 {
		r.linkFrom = r.last
	}
}

// sentence ends a sentence: its invitation to ask is Unread if it names the price.
func (r *priceReader) sentence() {
	r.unread = r.unread || r.ask && r.priceWord
	r.askAny = r.askAny || r.ask
	r.ask, r.priceWord = false, false
	r.last, r.linkFrom, r.npending = -1, -1, 0
	r.part++
	r.junk += partGap
}
