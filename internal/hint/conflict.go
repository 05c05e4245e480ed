package hint

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool/internal/textout"
)

// Conflict: an empty answer whose AND parts each match rows alone is the most puzzling kind. The hint
// names the smallest set of parts that match nothing together (pairs, and triples of at most six
// parts), with how many rows each part matches, and the range of the first of them that reads dates
// or numbers (ranges.go).
const Conflict Kind = "conflict"

var conflict = &analyzer{scope: wholeQuery, run: func(p *pass, _ int) []Hint {
	if len(p.parts) < 2 {
		return nil
	}
	counts := make([]int64, len(p.parts))
	for k := range p.parts {
		n, ok := p.count(k)
		if !ok || n == 0 {
			return nil // a part that matches nothing alone is explained by itself
		}
		counts[k] = n
	}
	for _, set := range conflictSets(len(p.parts)) {
		n, ok := p.count(set...)
		if !ok {
			return nil
		}
		if n > 0 {
			continue
		}
		var each, conds []string
		var dates string
		for _, k := range set {
			text := p.partText(k)
			conds = append(conds, text)
			each = append(each, fmt.Sprintf("%s matches %d %s", text, counts[k], textout.Plural(int(counts[k]), "row", "rows")))
			if dates == "" && mayDateHint(p.parts[k], p.scope) {
				dates = p.rangeOf(k)
			}
		}
		cond := strings.Join(conds, " AND ")
		out := []Hint{{Kind: Conflict, Condition: cond, Text: "no row matches these conditions together, though each matches rows alone: " + strings.Join(each, ", ")}}
		if dates != "" {
			out = append(out, Hint{Kind: Range, Condition: cond, Text: dates})
		}
		return out
	}
	return nil
}}

// conflictSets are the sets of n parts looked at for a conflict, smallest first: pairs, and triples
// of at most six parts.
func conflictSets(n int) [][]int {
	var sets [][]int
	for size := 2; size <= min(3, n); size++ {
		if size == 3 && n > 6 {
			break
		}
		sets = append(sets, combinations(n, size)...)
	}
	return sets
}

// combinations lists the k-element subsets of 0..n-1 in order.
func combinations(n, k int) [][]int {
	var out [][]int
	var walk func(start int, cur []int)
	walk = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, append([]int{}, cur...))
			return
		}
		for i := start; i < n; i++ {
			walk(i+1, append(cur, i))
		}
	}
	walk(0, nil)
	return out
}
