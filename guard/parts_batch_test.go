package guard

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// TestTruthsGroupsByEveryPart: one statement groups the query's FROM by the truth of each AND part,
// and the parts' texts are those Condition gives one at a time.
func TestTruthsGroupsByEveryPart(t *testing.T) {
	conn := standIn(t)
	stmt, err := Parse(context.Background(), conn, "WITH w AS (SELECT 1) SELECT name FROM stores WHERE category = 'cafe' AND (name LIKE 'A%' OR name = 'B') AND n > 1")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := TopSelect(stmt)
	parts := s.AndParts()
	c, ok := NewCounter(context.Background(), conn, s, ForDataset(schema.Stores))
	if !ok {
		t.Fatal("no counter")
	}
	count, texts, ok := c.Truths(parts)
	if !ok {
		t.Fatal("Truths failed")
	}
	want := `WITH w AS (SELECT 1)SELECT (category = 'cafe'), (("name" ~~ 'A%') OR ("name" = 'B')), (n > 1), count_star() FROM stores GROUP BY ALL`
	if len(count.args) != 1 || count.args[0] != want || count.run.text != wrapper(maxTruthGroups) {
		t.Errorf("count statement %q with %q\nwant %q with\n%s", count.run.text, count.args, wrapper(maxTruthGroups), want)
	}
	for i, p := range parts {
		one, ok := c.Condition(p)
		if !ok || texts[i] != one {
			t.Errorf("part %d: text %q, Condition gives %q", i, texts[i], one)
		}
	}
}
