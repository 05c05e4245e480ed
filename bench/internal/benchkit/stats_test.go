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
