// Package offers reads, from a store's free text, whether it offers something (vegan dishes, step-free
// access, a nursing room: Read) and what limits the offer (ReadCaveat): the yes/no columns of
// stores_typed and their caveats.
package offers

import "github.com/azabudai/ctool/schema/internal/textscan"

// Offers are the yes/no columns stores_typed reads from a store's free text: each says whether the
// text says the store offers something (vegan dishes, step-free access, a nursing room). The rule is
// Read with the phrase table of phrases.go; ingest computes it for every store
// (migrations/derive.go), and its precision and recall on a corpus of cells are in docs/data.md
// (schema/offers/testdata/offers.tsv). ReadCaveat (caveats.go) gives what limits an offer a cell states.

// Offer is what a cell says of one offer.
type Offer int8

const (
	OfferUnknown Offer = iota // the cell is empty or says neither: NULL
	OfferYes                  // offered, perhaps with a condition, which ReadCaveat gives ("要予約", "shared fryer")
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
	allergy   // named only so that a cell about allergies is not read as about a diet
	plantMilk // with vegan: a plant milk, which alone is a swap, not a vegan dish (ReadCaveat)
)

// Topics lists the offers, in the order of their stores_typed columns.
var Topics = []Topic{
	{Column: "vegan_available", Source: "vegan_info", bit: vegan, dietary: true},
	{Column: "halal_available", Source: "halal_info", bit: halal, dietary: true},
	{Column: "gluten_free_available", Source: "gluten_free_info", bit: glutenFree, dietary: true},
	{Column: "wheelchair_accessible", Source: "accessibility", bit: wheelchair},
	{Column: "nursing_room_available", Source: "nursing_room", bit: nursing},
}

// maxOfferBytes bounds the text Read reads of a cell: a store's note is a few sentences, and a
// cell of megabytes (the data is anyone's) must cost no more than this.
const maxOfferBytes = 4096

// Read says what cell, a store's text in t's Source column, says of t's offer. Its reading:
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
func Read(t Topic, cell string) Offer {
	return readOffer(t, tokenize(foldOffer(textscan.Clip(cell, maxOfferBytes))))
}

// readOffer is Read of a cell's tokens.
func readOffer(t Topic, toks []token) Offer {
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
	bare           bool // strong is only a negation of nothing named: "no MSG", "not on weekends"
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
		v.strong, v.bare = OfferNo, true // "vegan: no", "not at this time"
	}
	if barriers > 0 {
		v.weakNeg = true
	}
	if ask {
		v.mention = false // "車椅子の方はお問い合わせください" says neither
	}
	return v, true
}
