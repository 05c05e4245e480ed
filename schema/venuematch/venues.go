// Package venuematch matches an event's venue to the store it names (Venues.Match): the store of
// events_typed, and validate's warning for a venue that reads like a store but names none.
package venuematch

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema/internal/textscan"
)

// An event's venue (location.venue) ties it to a store when the venue names one store:
// events_typed.store_id and store_name, which ingest computes with Venues (migrations/derive.go), and
// validate's warning (rule "venue") for a venue that reads like a store but names none.

// VenueOf is an events.location cell's venue, as json_extract_string(location, '$.venue') reads it:
// "" when the cell is empty, not a JSON object, or has no venue string.
func VenueOf(location string) string {
	var l struct {
		Venue *string `json:"venue"`
	}
	if location == "" || json.Unmarshal([]byte(location), &l) != nil || l.Venue == nil {
		return ""
	}
	return *l.Venue
}

// Store is a store as venues are matched against it.
type Store struct{ ID, Name string }

// VenueMatch is what a venue says of the stores.
type VenueMatch struct {
	Store Store // the one store the venue names; empty when it names none, or several alike
	// LooksLikeStore reports a venue that names no store yet reads like one: it is not a place of the
	// complex (no word of it ends in 広場, プラザ, ホール, ...), and it shares a word with one store's name
	// ("クリオロ 本店" and "洋菓子店クリオロ") or has a word of a store's kind ("〜店", "カフェ", "bar").
	LooksLikeStore bool
	Like           Store // for LooksLikeStore, the store whose name it shares a word with, if any
	Several        []Store
}

// Venues matches venues against a set of stores.
type Venues struct {
	stores       []Store
	byKey        map[string][]int // folded name → the stores of that name
	byBare       map[string][]int // the same without spaces
	distinct     []distinctWord   // the words of exactly one store's name, not words of the complex
	maxKeyLength int
}

type distinctWord struct {
	word  string
	store int
}

// maxVenueBytes bounds what Match reads of a venue: a venue is a name, and the cell is the data's.
const maxVenueBytes = 512

// New prepares the stores for matching. Stores with an empty name are left out.
func New(stores []Store) *Venues {
	v := &Venues{byKey: map[string][]int{}, byBare: map[string][]int{}}
	uses := map[string]map[int]bool{}
	for _, s := range stores {
		key := foldVenue(s.Name)
		if key == "" {
			continue
		}
		i := len(v.stores)
		v.stores = append(v.stores, s)
		v.byKey[key] = append(v.byKey[key], i)
		bare := strings.ReplaceAll(key, " ", "")
		v.byBare[bare] = append(v.byBare[bare], i)
		v.maxKeyLength = max(v.maxKeyLength, len(key))
		for _, w := range strings.Split(key, " ") {
			if utf8.RuneCountInString(w) < 2 || isKindWord(w) {
				continue
			}
			if uses[w] == nil {
				uses[w] = map[int]bool{}
			}
			uses[w][i] = true
		}
	}
	for w, in := range uses {
		if len(in) == 1 {
			for i := range in {
				v.distinct = append(v.distinct, distinctWord{w, i})
			}
		}
	}
	// In the stores' order, then the word's: the store a venue is said to be like is the same each run.
	slices.SortFunc(v.distinct, func(a, b distinctWord) int {
		if a.store != b.store {
			return a.store - b.store
		}
		return strings.Compare(a.word, b.word)
	})
	return v
}

// foldVenue is the form names are compared in: FoldNFKC (NFKC, which folds full and half width too,
// lower case, trimmed) and every run of white space one space.
func foldVenue(s string) string { return textscan.Spaced(textscan.Clip(s, maxVenueBytes)) }

// Match says which store a venue names: the store whose name it is once folded (width, case, spaces
// ignored), or else the store whose name it starts with, up to a break (a space, a sign, or a change of
// script: "洋菓子店クリオロ本店", "麻布台ヒルズマーケット キッチンスタジオ"), the longest name first.
// A venue that two stores' names fit alike names neither (Several lists them). The work is bounded by
// maxVenueBytes: a lookup per place the venue could break at.
func (v *Venues) Match(venue string) VenueMatch {
	key := foldVenue(venue)
	if key == "" {
		return VenueMatch{}
	}
	exact := v.byKey[key]
	for _, i := range v.byBare[strings.ReplaceAll(key, " ", "")] {
		if !slices.Contains(exact, i) {
			exact = append(exact, i)
		}
	}
	if m, ok := v.one(exact); ok {
		return m
	}
	for end := min(len(key)-1, v.maxKeyLength); end > 0; end-- {
		if !utf8.RuneStart(key[end]) {
			continue
		}
		if in, ok := v.byKey[key[:end]]; ok && breaksAfter(key, key[:end]) {
			m, _ := v.one(in)
			return m
		}
	}
	return v.unmatched(key)
}

// one is the match of a single store, or of none when several fit alike.
func (v *Venues) one(in []int) (VenueMatch, bool) {
	switch len(in) {
	case 0:
		return VenueMatch{}, false
	case 1:
		return VenueMatch{Store: v.stores[in[0]]}, true
	}
	m := VenueMatch{}
	for _, i := range in {
		m.Several = append(m.Several, v.stores[i])
	}
	return m, true
}

// breaksAfter reports whether key, which starts with name, breaks right after it: at its end, a space
// or a sign, a change of script, or "店" and a break ("鮨 つかさ 麻布台店").
func breaksAfter(key, name string) bool {
	rest := key[len(name):]
	if rest == "" {
		return true
	}
	next, _ := utf8.DecodeRuneInString(rest)
	last, _ := utf8.DecodeLastRuneInString(name)
	if scriptOf(next) == scriptNone || scriptOf(next) != scriptOf(last) {
		return true
	}
	if after, ok := strings.CutPrefix(rest, "店"); ok {
		return after == "" || scriptOf([]rune(after)[0]) == scriptNone
	}
	return false
}

type script int

const (
	scriptNone  script = iota // space, punctuation, symbols
	scriptLatin               // letters and digits
	scriptHiragana
	scriptKatakana
	scriptHan
	scriptOther
)

func scriptOf(r rune) script {
	switch {
	case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		return scriptLatin
	case unicode.Is(unicode.Hiragana, r):
		return scriptHiragana
	case unicode.Is(unicode.Katakana, r) || r == 'ー':
		return scriptKatakana
	case unicode.Is(unicode.Han, r) || r == '々':
		return scriptHan
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return scriptOther
	}
	return scriptNone
}

// placeWords end the words of the complex's shared places: a venue that has one is no store.
var placeWords = []string{"広場", "プラザ", "全館", "館内", "アトリウム", "ギャラリー", "ホール", "ロビー", "エントランス",
	"会場", "屋上", "公園", "テラス", "ガーデン", "エリア", "周辺", "各店", "各店舗", "全店", "オンライン", "plaza", "hall",
	"atrium", "gallery", "lobby", "entrance", "terrace", "garden", "park", "area", "online", "rooftop"}

// kindWords begin or end the words of a store's name: a venue with one reads like a store.
var kindWords = []string{"店", "ショップ", "カフェ", "バー", "レストラン", "ビストロ", "トラットリア", "ブーランジェリー",
	"ベーカリー", "パティスリー", "鮨", "寿司", "蕎麦", "そば", "焼肉", "ラーメン", "食堂", "酒場", "サロン", "shop", "store",
	"cafe", "café", "bar", "bistro", "restaurant", "bakery", "boutique", "salon", "patisserie"}

func isKindWord(w string) bool { return slices.Contains(foldedKindWords(), w) }

// maxLikeChecks bounds the comparisons of a venue's words with the stores' distinct words: a warning
// is worth a bounded cost, whatever the number of stores and venues.
const maxLikeChecks = 4096

// unmatched is the reading of a venue that names no store: whether it looks like one.
func (v *Venues) unmatched(key string) VenueMatch {
	words := strings.Split(key, " ")
	for _, w := range words {
		for _, p := range foldedPlaceWords() {
			if strings.HasSuffix(w, p) {
				return VenueMatch{}
			}
		}
	}
	checks := 0
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || (scriptOf([]rune(w)[0]) == scriptLatin && len(w) < 3) || isKindWord(w) {
			continue
		}
		for _, d := range v.distinct {
			if checks++; checks > maxLikeChecks {
				break
			}
			if strings.Contains(d.word, w) || strings.Contains(w, d.word) {
				return VenueMatch{LooksLikeStore: true, Like: v.stores[d.store]}
			}
		}
	}
	for _, w := range words {
		for _, k := range foldedKindWords() {
			if strings.HasPrefix(w, k) || strings.HasSuffix(w, k) {
				return VenueMatch{LooksLikeStore: true}
			}
		}
	}
	return VenueMatch{}
}

var (
	foldedPlaceWords = sync.OnceValue(func() []string { return foldAll(placeWords) })
	foldedKindWords  = sync.OnceValue(func() []string { return foldAll(kindWords) })
)

func foldAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = foldVenue(w)
	}
	return out
}
