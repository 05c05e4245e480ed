package textscan

import (
	"reflect"
	"testing"
)

// The longest phrase at each place, left to right; ASCII phrases as whole words only; a phrase added
// twice reports the value it had.
func TestTrie(t *testing.T) {
	tr := NewTrie[int]()
	for w, v := range map[string]int{"月": 1, "月曜": 2, "mon": 3, "土日": 4} {
		tr.Add(w, v)
	}
	if old, had := tr.Add("mon", 5); !had || old != 3 {
		t.Errorf("Add of a phrase there already: %d %v", old, had)
	}
	got := tr.Match("月曜と土日、monday mon 月")
	want := []Match[int]{{0, 6, 2}, {9, 15, 4}, {25, 28, 5}, {29, 32, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Match: %v, want %v", got, want)
	}
}
