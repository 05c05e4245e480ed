package offers

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema/internal/textscan"
	"golang.org/x/text/unicode/norm"
)

// maxCaveatRunes bounds ReadCaveat's answer: a note for an agent beside a yes, not the cell again.
const maxCaveatRunes = 200

// ReadCaveat says what limits the offer of t that cell states: the clauses of the cell that put a
// limit on it, as the cell writes them (trimmed of separators and brackets), joined with "; " and cut
// to maxCaveatRunes characters with "…". It is "" when Read does not read the cell as OfferYes,
// and when the cell states the offer without a limit.
//
// A limit is a condition ("要予約", "前日まで", "on request", "要相談"), a quantity or a time ("数量限定",
// "平日のみ", "some items", "一部"), a kitchen or certification caveat ("shared fryer", "同じ厨房で小麦を扱い
// ます", "may contain traces", "認証なし"), a swap ("豆乳に変更可", "soy milk on request": the offer is a
// substitution), help needed ("スタッフがお手伝いします", "介助"), or partial access ("1階のみ", "2階は階段
// のみ", "the entrance has a step"). In gluten_free_available, and in any food column where it names a
// shared kitchen or fryer, contamination, or an ingredient handled beside the food, a caveat means the
// food is not safe for an allergy or coeliac visitor: an agent must say so, not that it is gluten-free.
//
// The reading is Read's, on the same clauses with the same table: a clause about t limits the
// offer if it holds a hedge or a limit (cueHedge, cueLimit, cueOnly) that no negation next to it undoes
// ("予約不要", "no reservation needed", "コンタミなし"), if Read would read it as a refusal, a barrier
// or an ingredient the food contains ("認証なし", "2階は階段のみ", "出汁は鰹節を使用"), or if it starts with
// "except". "のみ" or "only" next to a food says the food is pure ("植物性食材のみ使用"), not a limit. A
// caveat opened by "ただし", "but" or a bracket runs to its full stop, commas and all. In vegan_available,
// a plant milk that is all the cell offers is a limit: the offer is a swap, not a vegan dish.
func ReadCaveat(t Topic, cell string) string {
	src := textscan.Clip(cell, maxOfferBytes)
	m := foldMapped(src)
	toks := tokenize(m.text)
	if readOffer(t, toks) != OfferYes {
		return ""
	}
	if !utf8.ValidString(src) && Read(t, cell) != OfferYes {
		return "" // foldMapped's text may differ from foldOffer's next to a byte not UTF-8
	}
	ps := parts(m.text, toks, apart(toks, match(limitTrie(), m.text)))
	var abouts []bool
	follows := false
	read := t
	if t.bit == glutenFree {
		read.bit |= allergy // an allergy warning is a coeliac's too
	}
	for i := range ps {
		v, about := readClause(read, ps[i].toks, follows)
		if len(ps[i].toks) > 0 {
			follows = about // as Read: a clause of no phrase passes nothing on
		}
		abouts = append(abouts, about)
		ps[i].limited = about && ps[i].limiting(t, m.text, v)
	}
	if t.bit == vegan && milkOnly(t, ps, abouts) {
		for i := range ps {
			ps[i].limited = ps[i].limited || abouts[i] && names(ps[i].toks, plantMilk)
		}
	}
	var out []string
	runes := 0
	for i := 0; i < len(ps) && runes <= maxCaveatRunes; {
		j, limited := i+1, ps[i].limited
		for j < len(ps) && ps[j].caveat && ps[j].opener.cue == cueComma {
			limited = limited || ps[j].limited
			j++
		}
		if limited {
			start := ps[i].start
			if isExcept(m.text, ps[i].opener) {
				start = ps[i].opener.start
			}
			if c := m.original(src, start, ps[j-1].end); c != "" && !contains(out, c) {
				out = append(out, c)
				runes += utf8.RuneCountInString(c) + 2
			}
		}
		i = j
	}
	return clipRunes(strings.Join(out, "; "), maxCaveatRunes)
}

// part is the text between two separators, with its phrases: a clause of Read's.
type part struct {
	start, end int   // in the folded text
	opener     token // the separator before it; cue 0 at the start
	toks       []token
	limits     []token // of limitTrie
	caveat     bool    // after "ただし", "but", a bracket, up to a full stop
	limited    bool
}

// parts splits the folded text at the separators among toks, as clauses does, but keeps every part,
// phrases or none, and does not split a time or a date ("11:00", "3/15").
func parts(s string, toks, limits []token) []part {
	var out []part
	cur := part{}
	for _, k := range toks {
		switch {
		case k.cue != cueBreak && k.cue != cueComma && k.cue != cueCaveat, betweenDigits(s, k):
			cur.toks = append(cur.toks, k)
			continue
		}
		cur.end = k.start
		out = append(out, cur)
		cur = part{start: k.end, opener: k, caveat: k.cue == cueCaveat || cur.caveat && k.cue == cueComma}
	}
	cur.end = len(s)
	out = append(out, cur)
	i := 0
	for _, k := range limits { // both in the order of the text
		for i < len(out) && k.start >= out[i].end {
			i++
		}
		if i < len(out) && k.start >= out[i].start && k.end <= out[i].end {
			out[i].limits = append(out[i].limits, k)
		}
	}
	return out
}

// betweenDigits reports whether k is a ":", "." or "/" inside a number, a time or a date.
func betweenDigits(s string, k token) bool {
	w := s[k.start:k.end]
	return (w == ":" || w == "." || w == "/") && k.start > 0 && k.end < len(s) &&
		isDigit(s[k.start-1]) && isDigit(s[k.end])
}

// apart keeps the limits that overlap no other phrase: the rest of the table wins.
func apart(toks, limits []token) []token {
	var out []token
	i := 0
	for _, l := range limits {
		for i < len(toks) && toks[i].end <= l.start {
			i++
		}
		if i < len(toks) && toks[i].start < l.end {
			continue
		}
		out = append(out, l)
	}
	return out
}

// limiting reports whether a part about t, read as v, limits the offer.
func (p *part) limiting(t Topic, s string, v verdict) bool {
	all := merge(p.toks, p.limits)
	hedged, undone := false, false
	for i, k := range all {
		switch {
		case k.cue == cueHedge, k.cue == cueOnly, k.cue == cueLimit && (k.topics == 0 || k.topics&t.bit != 0):
		default:
			continue
		}
		switch {
		case undoes(all, i):
			undone = true
		case k.cue == cueOnly && t.dietary && pure(all, i):
		default:
			hedged = true
		}
	}
	// A bare negation in a food column is mostly of something else ("no MSG"); in one of access, of it.
	negative := v.weakNeg || v.strong == OfferNo && (!v.bare || p.caveat || !t.dietary)
	return hedged || negative && !undone && !absent(t, all) || isExcept(s, p.opener)
}

// undoes reports whether a negation next to all[i] undoes it: "予約不要", "コンタミなし", "no reservation
// needed", "reservation not required".
func undoes(all []token, i int) bool {
	k := all[i]
	if i+1 < len(all) {
		n := all[i+1]
		gap := n.start - k.end
		if gap <= near && (n.cue == cueNegAfter || n.cue == cueNeutral) || gap <= 2 && n.cue == cueNegBefore {
			return true
		}
	}
	if i > 0 {
		b := all[i-1]
		return k.start-b.end <= near && (b.cue == cueNo || b.cue == cueNegBefore)
	}
	return false
}

// diets are the topics of food.
const diets = vegan | halal | glutenFree

// pure reports whether "のみ" or "only" at all[i] says what a food is made of, not when or where it is
// offered: next to a diet or an ingredient ("ヴィーガンのみ", "植物性食材のみ", "only halal meat"), or with
// a word of use ("のみ使用", "uses only").
func pure(all []token, i int) bool {
	food := func(k token) bool { return (k.cue == cueTopic || k.cue == cueIngredient) && k.topics&diets != 0 }
	k := all[i]
	// A word may lie between: "植物性食材のみ".
	if i > 0 && k.start-all[i-1].end <= 6 && (food(all[i-1]) || all[i-1].cue == cueContains) {
		return true
	}
	if i+1 < len(all) {
		n := all[i+1]
		return n.start-k.end <= 2 && food(n) || n.start-k.end <= near && n.cue == cueContains
	}
	return false
}

// absent reports whether the part says an ingredient of t is left out ("卵・乳不使用", "no pork or alcohol
// used", "アルコールの提供なし", but not "みりんは除去できません"): a negation there is the offer's, not a limit.
func absent(t Topic, all []token) bool {
	mine := func(k token) bool { return k.cue == cueIngredient && k.topics&t.bit != 0 }
	for i, k := range all {
		if !mine(k) {
			continue
		}
		if i > 0 && all[i-1].cue == cueNo && k.start-all[i-1].end <= 2 {
			return true
		}
		for j := i + 1; j < len(all) && j <= i+2 && all[j].start-all[j-1].end <= near; j++ {
			if c := all[j].cue; c == cueNegAfter || c == cueAbsent && !undoes(all, j) {
				return true
			} else if c != cuePos {
				break
			}
		}
	}
	return false
}

// milkOnly reports whether the parts about vegan name a plant milk and nothing else vegan: no vegan
// dish, nothing free of animal products.
func milkOnly(t Topic, ps []part, abouts []bool) bool {
	milk := false
	for i, p := range ps {
		if !abouts[i] {
			continue
		}
		for _, k := range p.toks {
			switch {
			case k.cue == cueTopic && k.topics&plantMilk != 0:
				milk = true
			case k.cue == cueTopic && k.topics&vegan != 0, k.cue == cueFreeOf && k.topics&vegan != 0:
				return false
			}
		}
		if absent(t, p.toks) {
			return false
		}
	}
	return milk
}

func names(toks []token, bit topicSet) bool {
	for _, k := range toks {
		if k.cue == cueTopic && k.topics&bit != 0 {
			return true
		}
	}
	return false
}

// isExcept reports whether k is "except", the one opener of a caveat that is part of it.
func isExcept(s string, k token) bool { return k.cue == cueCaveat && s[k.start:k.end] == "except" }

// merge is the phrases of a and b in the order of the text.
func merge(a, b []token) []token {
	out := make([]token, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && a[0].start < b[0].start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mapped is folded text (foldOffer's) with, for each of its bytes, the bytes of the cell it came from,
// so that a clause found in the folded text is given back as the cell writes it.
type mapped struct {
	text     string
	from, to []int32 // text[i] came from cell[from[i]:to[i]]
}

// foldMapped is foldOffer keeping the map: NFKC segment by segment (a segment ends where the next
// character cannot combine with it, so the segments' forms make the whole's), then lower case, the
// trimming, the marks and the spaces as foldOffer does them. Its text is foldOffer's for valid UTF-8;
// after a byte that is not, norm.NFKC.String leaves the next character as it is, and this does not.
func foldMapped(s string) mapped {
	type piece struct {
		r        rune
		from, to int32
	}
	ps := make([]piece, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			ps = append(ps, piece{unicode.ToLower(rune(s[i])), int32(i), int32(i + 1)}) // ASCII is its own form
			i++
			continue
		}
		n := norm.NFKC.NextBoundaryInString(s[i:], true)
		if n <= 0 {
			n = len(s) - i
		}
		seg := s[i : i+n]
		out := norm.NFKC.String(seg)
		for k := 0; k < len(out); {
			r, w := utf8.DecodeRuneInString(out[k:]) // a byte not UTF-8 is U+FFFD, as strings.ToLower has it
			p := piece{unicode.ToLower(r), int32(i), int32(i + n)}
			if out == seg {
				p.from, p.to = int32(i+k), int32(i+k+w)
			}
			ps = append(ps, p)
			k += w
		}
		i += n
	}
	for len(ps) > 0 && unicode.IsSpace(ps[0].r) {
		ps = ps[1:]
	}
	for len(ps) > 0 && unicode.IsSpace(ps[len(ps)-1].r) {
		ps = ps[:len(ps)-1]
	}
	var m mapped
	var b strings.Builder
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		switch p.r {
		case '\n':
			p.r = '。'
		case '’':
			p.r = '\''
		}
		if unicode.IsSpace(p.r) {
			for i+1 < len(ps) && ps[i+1].r != '\n' && unicode.IsSpace(ps[i+1].r) {
				i++
			}
			p.r, p.to = ' ', ps[i].to
		}
		n := b.Len()
		b.WriteRune(p.r)
		for ; n < b.Len(); n++ {
			m.from, m.to = append(m.from, p.from), append(m.to, p.to)
		}
	}
	m.text = b.String()
	return m
}

// original is the cell's text of the folded text's [i, j), trimmed of separators and brackets, its
// spaces one space and its bytes valid UTF-8.
func (m mapped) original(cell string, i, j int) string {
	if i >= j || i >= len(m.text) {
		return ""
	}
	s := strings.TrimFunc(cell[m.from[i]:m.to[j-1]], isCaveatEdge)
	var b strings.Builder
	space := false
	for _, r := range s { // a byte not UTF-8 comes as U+FFFD
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCaveatEdge reports whether r may be trimmed from a caveat's ends: space, punctuation between
// clauses, a bracket, a bullet.
func isCaveatEdge(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("。、，,.．;；:：!！?？/／・･()（）[]［］「」｢｣【】『』〔〕※*＊-－", r)
}

// clipRunes cuts s to at most n characters, the last "…" when it cuts.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for k < n-1 {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		k++
	}
	return s[:i] + "…"
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
