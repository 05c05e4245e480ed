package changes

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sort of a large index must order exactly as a comparison sort by hash, then row.
func TestSortKeyRows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, 5000, 70000} {
		s := make([]keyRow, n)
		for i := range s {
			h := r.Uint64()
			if i > 0 && r.IntN(4) == 0 {
				h = s[r.IntN(i)].h // repeated keys
			}
			if r.IntN(8) == 0 {
				h &= 0xffff // hashes that differ only in the low bits
			}
			s[i] = keyRow{h, int32(i)}
		}
		want := slices.Clone(s)
		slices.SortFunc(want, func(a, b keyRow) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.row, b.row)) })
		sortKeyRows(s)
		if !slices.Equal(s, want) {
			t.Errorf("%d rows: radix order differs from the comparison sort", n)
		}
	}
}

// Rows are paired by key and, for a repeated key, by occurrence in file order; occurrences are
// numbered 0 (the first), 2, 3…
func TestMatchByOccurrence(t *testing.T) {
	mk := func(hs ...uint64) *table {
		tb := &table{}
		for _, h := range hs {
			tb.addRow(h)
		}
		return tb
	}
	n := mk(7, 5, 7, 9, 7)
	o := mk(5, 7, 1, 7)
	if got, want := match(n, o), []int32{1, 0, 3, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("match = %v, want %v", got, want)
	}
	if want := []int32{0, 0, 2, 0, 3}; !slices.Equal(n.occ, want) {
		t.Errorf("occ = %v, want %v", n.occ, want)
	}
	if o.occ[3] != 2 || o.occ[1] != 0 {
		t.Errorf("old occ = %v", o.occ)
	}
}
