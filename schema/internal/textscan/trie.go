package textscan

// Trie holds phrases, folded as their reader folds its text, each with a value, to find in a text the
// longest phrase at each place, left to right: each place tries the trie's paths from it, at most the
// longest phrase's length, so the work is linear in the text.
type Trie[V any] struct{ root *trieNode[V] }

type trieNode[V any] struct {
	next  map[byte]*trieNode[V]
	leaf  bool
	ascii bool // a phrase of ASCII letters: matches whole words only (WordEnds)
	value V
}

// Match is one phrase found: its bytes start to end of the text, and its value.
type Match[V any] struct {
	Start, End int
	Value      V
}

// NewTrie is an empty Trie.
func NewTrie[V any]() *Trie[V] { return &Trie[V]{root: &trieNode[V]{next: map[byte]*trieNode[V]{}}} }

// Add adds the phrase w with value v. When w was there already it keeps v and returns the value it
// had and true, for the caller's check of phrases listed twice.
func (t *Trie[V]) Add(w string, v V) (old V, had bool) {
	n := t.root
	for i := 0; i < len(w); i++ {
		c := n.next[w[i]]
		if c == nil {
			c = &trieNode[V]{next: map[byte]*trieNode[V]{}}
			n.next[w[i]] = c
		}
		n = c
	}
	old, had = n.value, n.leaf
	n.leaf, n.value = true, v
	n.ascii = w != "" && w[0] >= 'a' && w[0] <= 'z'
	return old, had
}

// Match finds the phrases of s, the longest at each place, left to right.
func (t *Trie[V]) Match(s string) []Match[V] {
	var out []Match[V]
	for i := 0; i < len(s); {
		n, best, bestEnd := t.root, (*trieNode[V])(nil), 0
		for j := i; j < len(s); j++ {
			if n = n.next[s[j]]; n == nil {
				break
			}
			if n.leaf && WordEnds(s, i, j+1, n.ascii) {
				best, bestEnd = n, j+1
			}
		}
		if best == nil {
			i += RuneLen(s[i])
			continue
		}
		out = append(out, Match[V]{Start: i, End: bestEnd, Value: best.value})
		i = bestEnd
	}
	return out
}
