package benchkit

import (
	"slices"
	"strings"
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

// MedianOver is the median of f over rounds 0..n-1 (the mean of the middle two when n is even).
func MedianOver(n int, f func(round int) float64) float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	slices.Sort(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// EachRound lists f over rounds 0..n-1, comma-separated, for a report's last column.
func EachRound(n int, f func(round int) string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = f(i)
	}
	return strings.Join(s, ", ")
}
