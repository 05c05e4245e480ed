package hint_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/empty_hints.golden")

// goldenHintQueries are empty answers of every kind, on the sample build and on data unlike it.
var goldenHintQueries = []struct {
	dataset *schema.Dataset
	sql     string
}{
	{schema.Stores, "SELECT * FROM stores WHERE category = 'nosuch'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'bar'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'pub'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'カフェ'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category IN ('restaurants', 'shops', 'ＢＡＲ')"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category LIKE '%nosuch%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE lower(category) = 'カフェ'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name LIKE '%nosuch%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name LIKE '%ドッグサロン＆カフェ%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name LIKE '%ﾏｰｹｯﾄ%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE lower(store_name) LIKE '%ばー%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name = 'じぇらてりあ　そるべ'"},
	{schema.Stores, "SELECT store_id FROM stores WHERE store_name = 'アラビカ 麻布台ヒルズ '"},
	{schema.Stores, "SELECT store_name FROM stores WHERE store_name = '中村藤吉'"},
	{schema.Stores, "SELECT phone FROM stores WHERE store_name = 'ジェラテリア　ソルベ'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE contains(store_name, 'ドッグサロン＆カフェ')"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_name LIKE '%鮨%'"},
	{schema.Stores, "SELECT store_name FROM stores_typed WHERE category = 'restaurant' AND store_name LIKE '%ソルベ%'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'bar' AND category = 'cafe'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_name = 'アラビカ'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'restaurant' AND store_name = 'アラビカ'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'restaurant' AND store_name = '麻布台'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE (category = 'cafe' OR category = 'bar' OR category = 'retail' OR category = 'service' OR " +
		"category = 'restaurant' OR pets_allowed = 'TRUE' OR extraction_status = 'success' OR extraction_status = 'error') AND store_name = 'nosuch'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_name LIKE '%鮨%' AND store_id <> 'a' AND store_id <> 'b' AND " +
		"store_id <> 'c' AND store_id <> 'd' AND store_id <> 'e' AND store_id <> 'f' AND store_id <> 'g'"},
	{schema.Stores, "WITH stores AS (SELECT 'x' AS category) SELECT * FROM stores WHERE category = 'カフェ'"},
	{schema.Stores, "SELECT p.product_name FROM products p JOIN stores s ON s.store_id = p.store_id WHERE s.category = 'Coffee'"},
	{schema.Stores, "SELECT store_name FROM stores WHERE pets_allowed = 'nosuch' OR category = 'nosuch'"},
	{schema.Products, "SELECT product_name FROM products WHERE tag = 'スナック'"},
	{schema.Products, "SELECT product_name FROM products WHERE tag = 'スイーツ'"},
	{schema.Products, "SELECT product_name FROM products WHERE tag = 'gift'"},
	{schema.Products, "SELECT product_name FROM products WHERE product_description LIKE '%nosuch%'"},
	{schema.Products, "SELECT product_name FROM products WHERE product_name ILIKE '%ｷﾞﾌﾄ%'"},
	{schema.Products, "SELECT product_name FROM products_typed WHERE price_yen < 0"},
	{schema.Products, "SELECT product_name FROM products WHERE store_id = 'STR-00001'"},
	{schema.Products, "SELECT product_name FROM products WHERE store_id IN (SELECT store_id FROM stores WHERE category = 'bakery')"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE start_date >= DATE '2030-01-01'"},
	{schema.Events, "SELECT event_name FROM events WHERE date_time LIKE '2031%'"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE CAST(tokyo_now() AS DATE) BETWEEN start_date AND end_date AND is_free"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE list_contains(target_audience, '子ども')"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE list_has_any(target_audience, ['ファミリー'])"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE list_contains(target_audience, '子ども') AND NOT list_contains(target_audience, '家族')"},
	{schema.Events, "SELECT event_name FROM events WHERE cost LIKE '%タダ%'"},
	{schema.Events, "SELECT event_name FROM events WHERE json_extract_string(cost, '$.is_free') = 'yes'"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE venue = 'nosuch' AND is_free"},
	{schema.Events, "SELECT event_name FROM events_typed WHERE event_name = 'nosuch'"},
}

// today is the part of a date hint that changes with the day the test runs.
var today = regexp.MustCompile(`today in Tokyo is [0-9]{4}-[0-9]{2}-[0-9]{2}`)

// TestEmptyHintsGolden compares the whole hint of each empty answer with the golden file, on the sample
// build and on data unlike it, each query asked twice (the second answer comes from what the first
// one cached).
//
//	go test ./hint -run EmptyHintsGolden -update
func TestEmptyHintsGolden(t *testing.T) {
	input := t.TempDir()
	ingesttest.CopyDir(t, ingesttest.SampleInput(t), input, nil)
	stores := filepath.Join(input, schema.Stores.SourceFile)
	rewriteColumn(t, stores, "category", map[string]string{"bar": "restaurant"})
	rewriteColumn(t, stores, "store_name", map[string]string{"バー ルミエール": "BAR 深夜二時 ルミエール", "ジェラテリア ソルベ": "ジェラテリア\u3000ソルベ"})
	rewriteColumn(t, filepath.Join(input, schema.Products.SourceFile), "tag", map[string]string{"スイーツ": "Sweets", "ギフト": "Gift Box"})
	editColumn(t, filepath.Join(input, schema.Events.SourceFile), "date_time", func(string) string { return "2025-10-01/2025-12-28" })
	builds := []struct{ name, path string }{
		{"sample", ingesttest.Build(t, ingesttest.SampleInput(t))},
		{"other", ingesttest.Build(t, input)},
	}
	var got strings.Builder
	for _, b := range builds {
		live := database.NewLive(b.path)
		e := query.NewEngine(live)
		for _, q := range goldenHintQueries {
			var first string
			for i := range 2 {
				res, err := e.Query(context.Background(), q.dataset, q.sql)
				if err != nil {
					t.Fatalf("%s: %s: %v", b.name, q.sql, err)
				}
				hint := today.ReplaceAllString(res.Hint, "today in Tokyo is <today>")
				if len(res.Rows) != 0 {
					hint = "(rows)" // a query that is empty on one build only
				}
				if i == 0 {
					first = hint
				} else if hint != first {
					t.Errorf("%s: %s: asked again, the hint changed:\n%s\n%s", b.name, q.sql, first, hint)
				}
			}
			got.WriteString(b.name + ": " + q.sql + "\n\t" + first + "\n")
		}
		live.Close()
	}
	golden := filepath.Join("testdata", "empty_hints.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d differs from %s:\ngot  %s\nwant %s", i+1, golden, g[i], w[i])
			}
		}
		t.Fatalf("%s has %d lines, the hints %d", golden, len(w), len(g))
	}
}
