package benchkit

import (
	"slices"
	"time"
)

// Percentile is the p-th percentile (nearest rank) of times; 0 when there are none.
func Percentile(times []time.Duration, p int) time.Duration {
	if len(times) == 0 {
		return 0
	}
	s := slices.Clone(times)
	slices.Sort(s)
	rank := (len(s)*p + 99) / 100
	return s[max(rank-1, 0)]
}
