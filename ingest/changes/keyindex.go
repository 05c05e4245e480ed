package changes

import (
	"cmp"
	"slices"
)

// keyRow is one row in a table's key index.
type keyRow struct {
	h   uint64
	row int32
}

// index sorts the table's rows by key hash, then by row, once: the rows of a repeated key lie
// together in the order they were read, so they are numbered (occ) and matched by occurrence with a
// merge of two sorted lists instead of a million map operations per side.
func (t *table) index() []keyRow {
	if t.sorted != nil || len(t.keyHash) == 0 {
		return t.sorted
	}
	s := make([]keyRow, len(t.keyHash))
	for i, h := range t.keyHash {
		s[i] = keyRow{h, int32(i)}
	}
	sortKeyRows(s)
	for i := 1; i < len(s); i++ {
		if s[i].h != s[i-1].h {
			continue
		}
		if t.occ == nil {
			t.occ = make([]int32, len(s))
		}
		// As before: the first occurrence is 0, the second 2, the third 3.
		t.occ[s[i].row] = max(t.occ[s[i-1].row], 1) + 1
	}
	t.sorted = s
	return s
}

// sortKeyRows sorts by hash, then row: a radix sort on the hash (stable, so rows stay in order
// within a hash) for large tables, where it is several times faster than a comparison sort.
func sortKeyRows(s []keyRow) {
	if len(s) < 4096 {
		slices.SortFunc(s, func(a, b keyRow) int {
			return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.row, b.row))
		})
		return
	}
	tmp := make([]keyRow, len(s))
	src, dst := s, tmp
	for shift := uint(0); shift < 64; shift += 16 {
		var count [1 << 16]int
		for _, k := range src {
			count[k.h>>shift&0xffff]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range src {
			b := k.h >> shift & 0xffff
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	// Four passes: the result is back in s.
}

// has reports whether a row has the key text.
func (t *table) has(key string) bool {
	s := t.index()
	h := hashString(key)
	i, _ := slices.BinarySearchFunc(s, h, func(k keyRow, h uint64) int { return cmp.Compare(k.h, h) })
	return i < len(s) && s[i].h == h
}

// match pairs the rows of two tables by key, the nth occurrence of a key with its nth occurrence on
// the other side: for each of n's rows its row in o, or -1 when o lacks it.
func match(n, o *table) []int32 {
	ns, os := n.index(), o.index()
	out := make([]int32, len(ns))
	for i := range out {
		out[i] = -1
	}
	i, j := 0, 0
	for i < len(ns) && j < len(os) {
		switch {
		case ns[i].h < os[j].h:
			i++
		case ns[i].h > os[j].h:
			j++
		default:
			out[ns[i].row] = os[j].row
			i++
			j++
		}
	}
	return out
}
