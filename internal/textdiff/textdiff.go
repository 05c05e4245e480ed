// Package textdiff finds what changed between two texts, a word of Latin letters or digits or a single
// other character at a time (Japanese has no spaces between words: its characters are compared one by
// one), for people to see the changed part marked inside the text. Its inputs are data, from files
// anyone may have written: the work is bounded in time and memory, and beyond its bounds the differing
// middle of the texts is one replacement. It returns text, never markup: the caller marks the parts.
package textdiff

import (
	"unicode"
	"unicode/utf8"
)

// Op says which side a piece of text belongs to.
type Op uint8

const (
	Equal  Op = iota // in both texts
	Delete           // in the old text only
	Insert           // in the new text only
)

// Edit is a piece of one text or both.
type Edit struct {
	Op   Op
	Text string
}

// The bounds of the work. A text longer than MaxBytes, a differing middle of more than MaxTokens
// tokens, or texts that differ by more than MaxEdits tokens inserted and deleted are compared no
// further than their common start and end: the rest is one replacement. Myers' algorithm then takes at
// most (MaxTokens+1)·(MaxEdits+1) steps and keeps about MaxEdits² small integers.
const (
	MaxBytes  = 64 << 10
	MaxTokens = 8000
	MaxEdits  = 400
)

// Diff returns the edits that turn old into new: Equal pieces in both, Delete pieces of old only, Insert
// pieces of new only, in order, a Delete before the Insert that replaces it. The Equal and Delete
// pieces joined are old, byte for byte; the Equal and Insert pieces joined are new.
func Diff(old, new string) []Edit {
	if old == new {
		if old == "" {
			return nil
		}
		return []Edit{{Equal, old}}
	}
	if len(old) > MaxBytes || len(new) > MaxBytes {
		return replace(old, new)
	}
	a, b := tokens(old), tokens(new)
	// The common start and end are cut first: most edits change a little in the middle of a text.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	head, tail := join(a[:pre]), join(a[len(a)-suf:])
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var mid []Edit
	if len(am)+len(bm) > MaxTokens {
		mid = []Edit{{Delete, join(am)}, {Insert, join(bm)}}
	} else if mid = myers(am, bm); mid == nil {
		mid = []Edit{{Delete, join(am)}, {Insert, join(bm)}}
	}
	out := make([]Edit, 0, len(mid)+2)
	out = append(out, Edit{Equal, head})
	out = append(out, mid...)
	out = append(out, Edit{Equal, tail})
	return tidy(out)
}

// replace is the edit of texts too long to compare token by token: their common start and end, cut on
// character boundaries, and the rest replaced.
func replace(old, new string) []Edit {
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	for pre > 0 && (pre < len(old) && !utf8.RuneStart(old[pre]) || pre < len(new) && !utf8.RuneStart(new[pre])) {
		pre--
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	for suf > 0 && !utf8.RuneStart(old[len(old)-suf]) {
		suf--
	}
	return tidy([]Edit{
		{Equal, old[:pre]},
		{Delete, old[pre : len(old)-suf]},
		{Insert, new[pre : len(new)-suf]},
		{Equal, old[len(old)-suf:]},
	})
}

// tokens splits s into its tokens: a run of letters or digits of the Latin script (a word, a number),
// or any other single character. Invalid UTF-8 is a token a byte.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		j := i + w
		if wordRune(r) {
			for j < len(s) {
				r, w := utf8.DecodeRuneInString(s[j:])
				if !wordRune(r) {
					break
				}
				j += w
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// wordRune is a character of a word: a Latin letter or an ASCII digit.
func wordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= '0' && r <= '9' || r|0x20 >= 'a' && r|0x20 <= 'z') ||
		r >= 0xC0 && r < 0x250 && unicode.IsLetter(r)
}

func join(ts []string) string {
	n := 0
	for _, t := range ts {
		n += len(t)
	}
	b := make([]byte, 0, n)
	for _, t := range ts {
		b = append(b, t...)
	}
	return string(b)
}

// myers is Myers' O(ND) difference of two token lists, or nil when they differ by more than MaxEdits
// tokens. It keeps each round's furthest reaches to walk the path back.
func myers(a, b []string) []Edit {
	n, m := len(a), len(b)
	maxD := min(n+m, MaxEdits)
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		// This round's reaches, only the diagonals it can reach: -d…d.
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = int(v[off+k+1]) // down: a token of b inserted
			} else {
				x = int(v[off+k-1]) + 1 // right: a token of a deleted
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
				return walkBack(a, b, trace)
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return nil
}

// walkBack turns Myers' rounds into edits, from the end of both lists to their start.
func walkBack(a, b []string, trace [][]int32) []Edit {
	var rev []Edit
	x, y := len(a), len(b)
	at := func(d, k int) int { return int(trace[d][k+d]) }
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		pk := k - 1
		if k == -d || k != d && at(d-1, k-1) < at(d-1, k+1) {
			pk = k + 1
		}
		px := at(d-1, pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, Edit{Equal, a[x]})
		}
		if x == px {
			rev = append(rev, Edit{Insert, b[py]})
		} else {
			rev = append(rev, Edit{Delete, a[px]})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, Edit{Equal, a[x]})
	}
	out := make([]Edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// tidy joins neighbouring pieces of one kind, drops empty ones, puts each replacement's Delete before
// its Insert, and folds a short equal piece between two changes into them: "03-6230-1003" to
// "03-0000-0000" reads as one replaced number, not two.
func tidy(edits []Edit) []Edit {
	edits = merge(edits)
	out := make([]Edit, 0, len(edits)+4)
	folded := false
	for i, e := range edits {
		// Equal pieces and runs of changes alternate: an equal piece inside is between two changes.
		if e.Op == Equal && i > 0 && i+1 < len(edits) && utf8.RuneCountInString(e.Text) <= 2 {
			out = append(out, Edit{Delete, e.Text}, Edit{Insert, e.Text})
			folded = true
			continue
		}
		out = append(out, e)
	}
	if folded {
		out = merge(out)
	}
	return out
}

// merge joins each run of changes between equal pieces into one Delete and one Insert, and each run of
// equal pieces into one, leaving out empty pieces.
func merge(edits []Edit) []Edit {
	var out []Edit
	var buf [3][]byte // by Op
	flush := func(ops ...Op) {
		for _, op := range ops {
			if len(buf[op]) > 0 {
				out = append(out, Edit{op, string(buf[op])})
				buf[op] = buf[op][:0]
			}
		}
	}
	for _, e := range edits {
		if e.Op == Equal {
			flush(Delete, Insert)
		} else {
			flush(Equal)
		}
		buf[e.Op] = append(buf[e.Op], e.Text...)
	}
	flush(Equal, Delete, Insert)
	return out
}
