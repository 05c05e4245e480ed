package query_test

import (
	"context"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// TestShapeAnswersAsTheFullPath: a second query of a learned shape is answered through the shape's
// statement with the very document the full path gives it; empty answers, errors and shapes that
// cannot stand in for their queries go down the full path.
func TestShapeAnswersAsTheFullPath(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	t.Cleanup(live.Close)
	learner := query.NewEngine(live)
	ctx := context.Background()
	tests := []struct {
		name          string
		dataset       *schema.Dataset
		first, second string
		hit           bool // the second query is answered by the shape
	}{
		{"equality", schema.Stores,
			"SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-1'",
			"SELECT store_name FROM stores WHERE category = 'restaurant' AND store_id <> 'X-2'", true},
		{"a label compares without case", schema.Stores,
			"SELECT store_name FROM stores WHERE category = 'cafe' OR category IN ('x') ORDER BY store_name",
			"SELECT store_name FROM stores WHERE category = 'CAFE' OR category IN ('Restaurant') ORDER BY store_name", true},
		{"a number compared with a string", schema.Products,
			"SELECT product_name FROM products_typed WHERE price_yen > '1000' ORDER BY product_name",
			"SELECT product_name FROM products_typed WHERE price_yen > '1200.5' ORDER BY product_name", true},
		{"LIKE and the hidden column", schema.Products,
			"SELECT * FROM products WHERE product_description LIKE '%円%'",
			"SELECT * FROM products WHERE product_description LIKE '%1,000円%'", true},
		{"IN, BETWEEN and dates", schema.Events,
			"SELECT event_name, start_date FROM events_typed WHERE start_date BETWEEN '2025-01-01' AND '2027-12-31' AND event_name NOT IN ('x') ORDER BY start_date",
			"SELECT event_name, start_date FROM events_typed WHERE start_date BETWEEN '2026-01-01' AND '2026-12-31' AND event_name NOT IN ('y') ORDER BY start_date", true},
		{"a list", schema.Stores,
			"SELECT store_name FROM stores_typed WHERE list_contains(target_audience, 'ファミリー') ORDER BY store_name",
			"SELECT store_name FROM stores_typed WHERE list_contains(target_audience, 'カップル') ORDER BY store_name", true},
		{"hours have no note", schema.Stores,
			"SELECT store_name FROM store_hours WHERE day = 'monday' ORDER BY store_name",
			"SELECT store_name FROM store_hours WHERE day = 'sunday' ORDER BY store_name", true},
		{"stores filtered by hours get their own note", schema.Stores,
			"SELECT store_name FROM stores s WHERE category = 'restaurant' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')",
			"SELECT store_name FROM stores s WHERE category = 'retail' AND NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')", true},
		{"an offer tested by its text keeps its note", schema.Stores,
			"SELECT store_name FROM stores WHERE category = 'restaurant' AND vegan_info IS NOT NULL",
			"SELECT store_name FROM stores WHERE category = 'cafe' AND vegan_info IS NOT NULL", true},
		{"a literal that spells the typed column takes no note away", schema.Stores,
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND store_name <> 'vegan_available'",
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND store_name <> 'x'", true},
		{"nor adds one", schema.Stores,
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND category <> 'y'",
			"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND category <> 'vegan_available'", true},
		{"the query's own LIMIT, with more rows", schema.Stores,
			"SELECT store_name FROM stores WHERE category <> 'x' ORDER BY store_id LIMIT 3",
			"SELECT store_name FROM stores WHERE category <> 'y' ORDER BY store_id LIMIT 3", true},
		{"the query's own LIMIT, with no more rows", schema.Stores,
			"SELECT store_name FROM stores WHERE category <> 'x' ORDER BY store_id LIMIT 5 OFFSET 15",
			"SELECT store_name FROM stores WHERE category <> 'y' ORDER BY store_id LIMIT 5 OFFSET 15", true},
		{"an empty answer gets its hint", schema.Stores,
			"SELECT store_name FROM stores WHERE category = 'cafe'",
			"SELECT store_name FROM stores WHERE category = 'nosuchcategory'", false},
		{"an error keeps its message", schema.Events,
			"SELECT event_name FROM events_typed WHERE start_date > '2025-01-01'",
			"SELECT event_name FROM events_typed WHERE start_date > 'not a date'", false},
		{"a literal in the SELECT list has no shape", schema.Stores,
			"SELECT 'a' AS tag, store_name FROM stores WHERE category = 'cafe'",
			"SELECT 'b' AS tag, store_name FROM stores WHERE category = 'cafe'", false},
		{"a literal as a function's argument has no shape", schema.Events,
			"SELECT strftime(start_date, '%Y') AS y FROM events_typed WHERE event_name <> 'x'",
			"SELECT strftime(start_date, '%m') AS y FROM events_typed WHERE event_name <> 'x'", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := learner.Query(ctx, tc.dataset, tc.first); err != nil {
				t.Fatalf("first query: %v", err)
			}
			before := learner.ShapeHits()
			got, gotErr := learner.Query(ctx, tc.dataset, tc.second)
			if hit := learner.ShapeHits() > before; hit != tc.hit {
				t.Errorf("answered by the shape: %v, want %v", hit, tc.hit)
			}
			want, wantErr := query.NewEngine(live).Query(ctx, tc.dataset, tc.second)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if gotErr != nil {
				return
			}
			if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
				t.Errorf("answer\n%s\nwant\n%s", g, w)
			}
			if got.Build != want.Build || got.Build == "" {
				t.Errorf("build %q, want %q", got.Build, want.Build)
			}
		})
	}
}

// TestShapeNotesParseNothing: a query answered through its shape is not parsed again for its notes:
// the offer notes are the shape's, and only a query that reads hours has its own parsed.
func TestShapeNotesParseNothing(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)), database.WithStatementLog())
	t.Cleanup(live.Close)
	e := query.NewEngine(live)
	ctx := context.Background()
	parses := func() int {
		t.Helper()
		b, release, err := live.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		log, err := b.StatementLog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, stmt := range log {
			if strings.Contains(stmt, "json_serialize_sql") {
				n++
			}
		}
		return n
	}
	if _, err := e.Query(ctx, schema.Stores, "SELECT store_name FROM stores WHERE category = 'restaurant' AND vegan_info IS NOT NULL"); err != nil {
		t.Fatal(err)
	}
	before, hits := parses(), e.ShapeHits()
	res, err := e.Query(ctx, schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND vegan_info IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	if e.ShapeHits() != hits+1 {
		t.Fatal("the second query was not answered by its shape")
	}
	if !strings.Contains(res.Note, "stores_typed.vegan_available") {
		t.Errorf("note %q, want the offer note", res.Note)
	}
	if n := parses() - before; n != 0 {
		t.Errorf("the shape's query was parsed %d times for its notes", n)
	}
}

// TestShapeIsLearnedPerBuild: a new build learns its shapes anew.
func TestShapeIsLearnedPerBuild(t *testing.T) {
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	t.Cleanup(live.Close)
	e := query.NewEngine(live)
	ctx := context.Background()
	q := func(category string) {
		t.Helper()
		if _, err := e.Query(ctx, schema.Stores, "SELECT store_name FROM stores WHERE category = '"+category+"'"); err != nil {
			t.Fatal(err)
		}
	}
	q("cafe")
	q("restaurant")
	if e.ShapeHits() != 1 {
		t.Fatalf("%d answers by shape, want 1", e.ShapeHits())
	}
	ingesttest.Rebuild(t, input, path)
	q("cafe")
	if e.ShapeHits() != 1 {
		t.Errorf("the new build answered from the old build's shape")
	}
	q("restaurant")
	if e.ShapeHits() != 2 {
		t.Errorf("%d answers by shape, want 2", e.ShapeHits())
	}
}

// TestOneQueryEngineLearnsNoShape: an engine for one query answers it and proves nothing.
func TestOneQueryEngineLearnsNoShape(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	t.Cleanup(live.Close)
	e := query.NewEngine(live).ForOneQuery()
	for _, category := range []string{"cafe", "restaurant"} {
		res, err := e.Query(context.Background(), schema.Stores, "SELECT store_name FROM stores WHERE category = '"+category+"'")
		if err != nil || len(res.Rows) == 0 {
			t.Fatalf("%s: %v, %v", category, res, err)
		}
	}
	if e.ShapeHits() != 0 {
		t.Errorf("%d answers by shape from an engine for one query", e.ShapeHits())
	}
}
