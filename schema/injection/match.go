package injection

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema/internal/textscan"
)

// matchInjection finds the first match in folded text: its bytes and the rule's kind, or "".
func matchInjection(s []byte) (start, end int, kind string) {
	root := injTrie()
	for i := 0; i < len(s); {
		if isInjWord(s[i]) && i > 0 && isInjWord(s[i-1]) {
			i++ // an ASCII word is entered only at its start
			continue
		}
		if s[i] >= utf8.RuneSelf && !injFirstRune(s[i:]) {
			i += textscan.RuneLen(s[i]) // no word starts with this character: most of a Japanese cell
			continue
		}
		best, bestKind := -1, ""
		n := root[s[i]]
		for j := i; n != nil; j++ {
			for _, a := range n.anchors {
				if !wholeWord(s, i, j+1, a.word) || inLongerWord(s[i:], a.word) {
					continue
				}
				r := &injRules[a.rule]
				if e, ok := r.match(s, i, j+1); ok && e > best {
					best, bestKind = e, r.kind
				}
			}
			if j+1 == len(s) {
				break
			}
			n = n.child(s[j+1])
		}
		if best >= 0 {
			return i, best, bestKind
		}
		i += textscan.RuneLen(s[i])
	}
	return 0, 0, ""
}

// match tries r's parts after its first, which runs from i to e, and returns the match's end.
func (r *injRule) match(s []byte, i, e int) (int, bool) {
	before := bytes.TrimRight(s[:i], " ")
	if len(r.notBefore) > 0 && endsWithAny(before, r.notBefore) || r.atStart && !atSentenceStart(before) {
		return 0, false
	}
	for k, alts := range r.parts[1:] {
		gap := r.gap
		if k < len(r.gaps) {
			gap = r.gaps[k]
		}
		next, ok := r.nextPart(s, e, gap, alts)
		if !ok {
			return 0, false
		}
		e = next
	}
	if len(r.notAfter) > 0 && startsWithAny(bytes.TrimLeft(s[e:], " "), r.notAfter) {
		return 0, false
	}
	return e, true
}

// nextPart finds the nearest word of alts within gap bytes after e (the longest, of two there) and
// returns its end.
func (r *injRule) nextPart(s []byte, e, gap int, alts []string) (int, bool) {
	bestAt, bestEnd := -1, -1
	take := func(at, end int) {
		if bestAt < 0 || at < bestAt || at == bestAt && end > bestEnd {
			bestAt, bestEnd = at, end
		}
	}
	for _, a := range alts {
		if a == "$" {
			if atSentenceEnd(s[e:]) {
				take(e, e)
			}
			continue
		}
		limit := min(len(s), e+gap+len(a))
		for from := e; from < limit; {
			k := bytes.Index(s[from:limit], []byte(a))
			if k < 0 {
				break
			}
			at := from + k
			if (r.inWords || wholeWord(s, at, at+len(a), a)) && !inLongerWord(s[at:], a) && r.gapOK(s[e:at]) {
				take(at, at+len(a))
				break
			}
			from = at + 1
		}
	}
	return bestEnd, bestAt >= 0
}

func (r *injRule) gapOK(g []byte) bool {
	switch r.mode {
	case gapToken:
		return bytes.IndexByte(g, ' ') < 0
	case gapMarks:
		for _, b := range g {
			if isInjWord(b) || b >= utf8.RuneSelf {
				return false
			}
		}
		return true
	case gapAny:
		return true
	}
	for k, b := range g {
		// A full stop ends a sentence when a space or the next part follows it; in "example.com" it
		// does not.
		if b == '!' || b == '?' || b == ';' || b == '.' && (k+1 == len(g) || g[k+1] == ' ') {
			return false
		}
	}
	return !bytes.Contains(g, []byte("。"))
}

// atSentenceEnd reports whether s, after one space at most, is empty or starts with a sentence mark.
func atSentenceEnd(s []byte) bool {
	s = bytes.TrimPrefix(s, []byte(" "))
	if len(s) == 0 {
		return true
	}
	if bytes.IndexByte([]byte(".!?;:)]>\"'"), s[0]) >= 0 {
		return true
	}
	r, _ := utf8.DecodeRune(s)
	return strings.ContainsRune("。」】』）", r)
}

// atSentenceStart reports whether the text before a word ends a sentence, or is empty.
func atSentenceStart(before []byte) bool {
	if len(before) == 0 {
		return true
	}
	if bytes.IndexByte([]byte(".!?:;)]>\"'*-"), before[len(before)-1]) >= 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(before)
	return strings.ContainsRune("。」】』）※・", r)
}

// wholeWord reports whether word, found at s[i:j], is not part of a longer ASCII word there.
func wholeWord(s []byte, i, j int, word string) bool {
	if isInjWord(word[0]) && i > 0 && isInjWord(s[i-1]) {
		return false
	}
	return !isInjWord(word[len(word)-1]) || j >= len(s) || !isInjWord(s[j])
}

// injLongerWords are ordinary words that start with a word of the table, which is not read in them:
// "指示書" is a printed sheet, not an order.
var injLongerWords = []string{"指示書", "指示棒", "指示器", "指示薬", "命令形", "instructions manual", "instruction manual",
	"instructions sheet", "instruction sheet", "instructions booklet", "instruction booklet",
	"instructions leaflet"}

// inLongerWord reports whether s, where word was found, starts with one of injLongerWords.
func inLongerWord(s []byte, word string) bool {
	for _, w := range injLongerWords {
		if strings.HasPrefix(w, word) && bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return false
}

func isInjWord(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' }

func endsWithAny(s []byte, words []string) bool {
	for _, w := range words {
		if bytes.HasSuffix(s, []byte(w)) && wholeWord(s, len(s)-len(w), len(s), w) {
			return true
		}
	}
	return false
}

func startsWithAny(s []byte, words []string) bool {
	for _, w := range words {
		if bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return false
}

type injNode struct {
	keys    []byte // the bytes that lead on, in order
	kids    []*injNode
	anchors []injAnchor // the rules whose first part has the word that ends here
}

// child is the node b leads to from n, or nil. Past the root a node has few children: a scan is
// cheaper than a map.
func (n *injNode) child(b byte) *injNode {
	for i, k := range n.keys {
		if k >= b {
			if k == b {
				return n.kids[i]
			}
			break
		}
	}
	return nil
}

func (n *injNode) add(b byte) *injNode {
	i := 0
	for i < len(n.keys) && n.keys[i] < b {
		i++
	}
	if i < len(n.keys) && n.keys[i] == b {
		return n.kids[i]
	}
	c := &injNode{}
	n.keys = append(n.keys[:i], append([]byte{b}, n.keys[i:]...)...)
	n.kids = append(n.kids[:i], append([]*injNode{c}, n.kids[i:]...)...)
	return c
}

type injAnchor struct {
	rule int
	word string
}

var (
	injOnce sync.Once
	injRoot [256]*injNode // the trie's first level, by the word's first byte
	// injFirst has a bit for each character of the Basic Multilingual Plane that starts a word of
	// the trie: one lookup passes over a character that starts none, rather than a walk of the trie.
	injFirst [0x10000 / 64]uint64
)

// injFirstRune reports whether a word of the trie may start with the character s starts with, s
// being folded text (valid UTF-8) and not ASCII there.
func injFirstRune(s []byte) bool {
	if len(s) < 3 || s[0] >= 0xf0 {
		return true // beyond the plane, or two bytes: the walk decides
	}
	r := rune(s[0]&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f) // utf8.DecodeRune is slower here
	return s[0] < 0xe0 || injFirst[r/64]&(1<<(r%64)) != 0
}

// injTrie folds injRules' words (so that the table may be written in any width or case) and puts
// their first parts in a byte trie, built once.
func injTrie() *[256]*injNode {
	injOnce.Do(func() {
		for ri := range injRules {
			r := &injRules[ri]
			for p, alts := range r.parts {
				for k, a := range alts {
					if a != "$" {
						alts[k] = string(foldInjection(nil, nil, a))
					}
				}
				if p > 0 {
					continue
				}
				for _, a := range alts {
					n := injRoot[a[0]]
					if n == nil {
						n = &injNode{}
						injRoot[a[0]] = n
					}
					for i := 1; i < len(a); i++ {
						n = n.add(a[i])
					}
					n.anchors = append(n.anchors, injAnchor{ri, a})
					if r, _ := utf8.DecodeRuneInString(a); r < 0x10000 {
						injFirst[r/64] |= 1 << (r % 64)
					}
				}
			}
		}
	})
	return &injRoot
}
