package hint

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/database/databasetest"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/schema"
)

// TestCountAllAsOneAtATime: the counts summed from one grouped statement, and the parts' names read
// in one call, are those each part and set gets alone.
func TestCountAllAsOneAtATime(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	for _, q := range []string{
		"SELECT store_name FROM stores WHERE category = 'cafe' AND store_name LIKE '%鮨%' AND store_id <> 'X'",
		"SELECT s.store_name FROM stores s JOIN products_typed p ON p.store_id = s.store_id WHERE s.category = 'bar' AND p.tag = 'ギフト' AND p.price_yen > 1000",
		"WITH e AS (SELECT * FROM events_typed) SELECT event_name FROM e WHERE is_free AND start_date >= DATE '2026-01-01' AND venue IS NOT NULL",
		"SELECT event_name FROM events_typed WHERE CAST(tokyo_now() AS DATE) BETWEEN start_date AND end_date AND (is_free OR venue = 'x')",
	} {
		stmt, err := guard.Parse(ctx, conn, q)
		if err != nil {
			t.Fatal(err)
		}
		sel, _ := querytree.TopSelect(stmt)
		parts := sel.AndParts()
		batch := newPartRunner(ctx, conn, sel, parts, guard.ForDataset(schema.Stores))
		if batch.groups == nil || len(batch.texts) != len(parts) {
			t.Fatalf("%s: the parts were not counted together", q)
		}
		alone := &partRunner{ctx: ctx, conn: conn, counter: batch.counter, parts: parts}
		sets := conflictSets(len(parts))
		for i := range parts {
			sets = append(sets, []int{i})
			if got, want := batch.text(i), alone.text(i); got != want {
				t.Errorf("%s: part %d is named %q together, %q alone", q, i, got, want)
			}
		}
		for _, set := range sets {
			got, _ := batch.count(set...)
			want, ok := alone.count(set...)
			if !ok || got != want {
				t.Errorf("%s: set %v counts %d together, %d alone (%v)", q, set, got, want, ok)
			}
		}
	}
}

// TestCounterWritesCheckedStatements: the counts run as checked queries of the text DuckDB writes
// back from the query's parts, and the parts are named as the query wrote them.
func TestCounterWritesCheckedStatements(t *testing.T) {
	ctx := context.Background()
	conn := databasetest.StandIn(t)
	stmt, err := guard.Parse(ctx, conn, "WITH w AS (SELECT 1) SELECT name FROM stores WHERE category = 'cafe' AND (name LIKE 'A%' OR name = 'B') AND n > 1")
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := querytree.TopSelect(stmt)
	parts := sel.AndParts()
	c, ok := newCounter(ctx, conn, sel, guard.ForDataset(schema.Stores))
	if !ok {
		t.Fatal("no counter")
	}
	count, ok := c.count([]querytree.Expr{parts[0], parts[2]})
	if !ok || count.Text() != "SELECT * FROM system.main.query(?) AS ctool_q LIMIT 2" {
		t.Fatalf("the count runs as %v, not as a checked query", count)
	}
	truths, texts, ok := c.truths(parts)
	if !ok || truths.Text() != "SELECT * FROM system.main.query(?) AS ctool_q LIMIT 28" {
		t.Fatalf("the truths run as %v, not as a checked query of at most 27 groups", truths)
	}
	want := []string{"category = 'cafe'", `("name" ~~ 'A%') OR ("name" = 'B')`, "n > 1"}
	for i, p := range parts {
		one, ok := c.condition(p)
		if !ok || texts[i] != one || one != want[i] {
			t.Errorf("part %d: %q together, %q alone, want %q", i, texts[i], one, want[i])
		}
	}
}

// TestValuesUnderOtherParts: the values a condition's column takes where the query's other AND parts
// hold, which its close values are checked against: through a wrapper, an OR, a list and a JSON
// field; a condition in a subquery has no other parts, and other parts that match no row together
// leave nothing to check against.
func TestValuesUnderOtherParts(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	for _, tc := range []struct{ sql, cond, want string }{
		{"SELECT store_name FROM stores WHERE category = 'cafe' AND lower(store_name) = 'x'", "lower(store_name) = 'x'",
			"アラビカ 麻布台ヒルズ|ジェラテリア ソルベ|中村藤吉 麻布台ヒルズ店"},
		{"SELECT s.store_name FROM stores s WHERE s.category = 'bar' AND (s.store_name = 'x' OR s.phone = 'y')", "store_name = 'x'",
			"バー ルミエール|ワインバー ヴィーニョ"},
		{"SELECT event_name FROM events_typed WHERE list_contains(target_audience, 'x') AND event_name LIKE '%ワイン%'", "list_contains(target_audience, 'x')",
			"20歳以上|ワイン好き"},
		{"SELECT event_name FROM events WHERE json_extract_string(cost, '$.is_free') = 'x' AND event_name LIKE '%ワイン%'", "json_extract_string(cost, '$.is_free') = 'x'",
			"false"},
		{"SELECT product_name FROM products WHERE tag = 'ギフト' AND store_id IN (SELECT store_id FROM stores WHERE category = 'x')", "category = 'x'", "no other parts"},
		{"SELECT store_name FROM stores WHERE category = 'nosuch' AND store_name = 'x'", "store_name = 'x'", "no row"},
	} {
		p, ok := newPass(ctx, conn, nil, Query{Text: tc.sql, Dataset: schema.Stores})
		if !ok {
			t.Fatalf("%s: no pass", tc.sql)
		}
		got := "no such condition"
		for i, c := range p.conds {
			if c.text != tc.cond {
				continue
			}
			others := p.otherParts(i)
			if len(others) == 0 {
				got = "no other parts"
				break
			}
			held, ok := p.counts().valuesUnder(c.ref, others)
			switch {
			case !ok:
				got = "not read"
			case held == nil:
				got = "no row"
			default:
				got = strings.Join(slices.Sorted(maps.Keys(held)), "|")
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s\n got %s\nwant %s", tc.sql, tc.cond, got, tc.want)
		}
	}
}
