package hint_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// cacheQueries read every kind of what a build's hint cache holds: a label's values and the text
// its words occur in, a name's values, a date range, a JSON column's example.
var cacheQueries = []struct {
	dataset *schema.Dataset
	sql     string
}{
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'pub'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name = 'ジェラテリア'"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE start_date >= DATE '2030-01-01'"},
	{schema.Events, "SELECT event_name FROM events WHERE cost LIKE '%タダ%'"},
	{schema.Products, "SELECT product_name FROM products WHERE tag = 'スナック'"},
}

func hintsOf(t *testing.T, e *query.Engine) []string {
	t.Helper()
	var out []string
	for _, q := range cacheQueries {
		res, err := e.Query(context.Background(), q.dataset, q.sql)
		if err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
		out = append(out, today.ReplaceAllString(res.Hint, "today"))
	}
	return out
}

// TestHintCacheFollowsNewBuilds: after an ingest, an engine that cached what the hints read of the
// old build gives the hints of the new data, the very ones an engine that never saw the old build
// gives.
func TestHintCacheFollowsNewBuilds(t *testing.T) {
	input := t.TempDir()
	ingesttest.CopyDir(t, ingesttest.SampleInput(t), input, nil)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	defer live.Close()
	e := query.NewEngine(live)
	before := hintsOf(t, e)

	stores := filepath.Join(input, schema.Stores.SourceFile)
	rewriteColumn(t, stores, "category", map[string]string{"bar": "restaurant", "cafe": "coffee"})
	rewriteColumn(t, stores, "store_name", map[string]string{"アラビカ 麻布台ヒルズ": "アラビカ BAR", "ジェラテリア ソルベ": "ジェラテリア　ソルベ"})
	rewriteColumn(t, filepath.Join(input, schema.Products.SourceFile), "tag", map[string]string{"スイーツ": "Sweets"})
	editColumn(t, filepath.Join(input, schema.Events.SourceFile), "date_time", func(string) string { return "2025-10-01/2025-12-28" })
	editColumn(t, filepath.Join(input, schema.Events.SourceFile), "cost", func(string) string { return `{"is_free": false, "amount": "1,000円", "notes": null}` })
	ingesttest.Rebuild(t, input, path)
	after := hintsOf(t, e)

	fresh := database.NewLive(path)
	defer fresh.Close()
	want := hintsOf(t, query.NewEngine(fresh))
	for i, q := range cacheQueries {
		if after[i] != want[i] {
			t.Errorf("%s: after an ingest the hint is\n%s\nwant the new build's\n%s", q.sql, after[i], want[i])
		}
		if after[i] == before[i] {
			t.Errorf("%s: the hint did not change with the data:\n%s", q.sql, after[i])
		}
	}
}

// TestHintCacheConcurrentCalls: many calls at once, on a cold cache and across an ingest, get the
// hints one call at a time gets (go test -race checks the cache's locking).
func TestHintCacheConcurrentCalls(t *testing.T) {
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	defer live.Close()
	want := hintsOf(t, query.NewEngine(live))
	e := query.NewEngine(live)
	for round := range 2 {
		if round == 1 {
			ingesttest.Rebuild(t, input, path) // the same data under a new build id: a cold cache again
		}
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, q := range cacheQueries {
					res, err := e.Query(context.Background(), q.dataset, q.sql)
					if err != nil {
						errs <- err.Error()
						return
					}
					if got := today.ReplaceAllString(res.Hint, "today"); got != want[i] {
						errs <- q.sql + ": " + got
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %s", round, err)
		}
	}
}
