package benchkit

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ten := []time.Duration{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	for _, tc := range []struct {
		times []time.Duration
		p     int
		want  time.Duration
	}{
		{nil, 50, 0},
		{[]time.Duration{7}, 99, 7},
		{ten, 50, 5},
		{ten, 99, 10},
		{ten, 0, 1},
		{ten, 100, 10},
	} {
		if got := Percentile(tc.times, tc.p); got != tc.want {
			t.Errorf("Percentile(%v, %d) = %v, want %v", tc.times, tc.p, got, tc.want)
		}
	}
	if ten[0] != 10 {
		t.Error("Percentile sorted its argument")
	}
}

func TestMedianOverAndEachRound(t *testing.T) {
	odd := []float64{3, 1, 2}
	even := []float64{4, 1, 3, 2}
	if got := MedianOver(3, func(r int) float64 { return odd[r] }); got != 2 {
		t.Errorf("median of %v = %v, want 2", odd, got)
	}
	if got := MedianOver(4, func(r int) float64 { return even[r] }); got != 2.5 {
		t.Errorf("median of %v = %v, want 2.5", even, got)
	}
	if got := EachRound(3, func(r int) string { return string(rune('a' + r)) }); got != "a, b, c" {
		t.Errorf("EachRound = %q", got)
	}
}
