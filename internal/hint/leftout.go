package hint

import (
	"fmt"

	"github.com/azabudai/ctool/internal/textout"
)

// LeftOut: the hints read at most maxConditions conditions and maxParts AND parts of a query, so a
// longer one is explained only in part. Rather than let the agent read the hints as the whole story,
// the hint says how many conditions it did not check, and that the parts were not counted.
const LeftOut Kind = "left-out"

var leftOut = &analyzer{scope: wholeQuery, run: func(p *pass, _ int) []Hint {
	var out []Hint
	if p.moreConds > 0 {
		out = append(out, Hint{Kind: LeftOut, Text: fmt.Sprintf("%d more %s not checked (the hint checks the first %d)",
			p.moreConds, textout.Plural(p.moreConds, "condition was", "conditions were"), maxConditions)})
	}
	if p.allParts > maxParts {
		out = append(out, Hint{Kind: LeftOut, Text: fmt.Sprintf("the WHERE clause's %d AND parts were not counted together (the hint counts at most %d)",
			p.allParts, maxParts)})
	}
	return out
}}
