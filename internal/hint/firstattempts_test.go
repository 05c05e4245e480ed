package hint_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// TestFirstAttempts runs the natural first attempts of an agent that has not seen the data: each finds
// rows, or its empty result names the fix.
func TestFirstAttempts(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		name    string
		dataset *schema.Dataset
		sql     string
		rows    bool   // rows are found
		hint    string // a part of the hint of an empty result ("" for none at all)
	}{
		// Labels compare without case.
		{"category in another case", schema.Stores, "SELECT store_name FROM stores WHERE category = 'Cafe'", true, ""},
		{"day as dayname gives it", schema.Stores, "SELECT store_name FROM store_hours WHERE day = dayname(DATE '2025-10-07')", true, ""},
		{"tag in capitals", schema.Products, "SELECT product_name FROM products_typed WHERE tag IN ('ギフト') AND price_yen < 3000", true, ""},
		// Other words for a label.
		{"category in Japanese", schema.Stores, "SELECT store_name FROM stores WHERE category = 'カフェ'", false, "closest values of category: 'cafe'"},
		{"category in kanji", schema.Stores, "SELECT store_name FROM stores_typed WHERE category = '喫茶'", false, "closest values of category: 'cafe'"},
		{"tag in English", schema.Products, "SELECT product_name FROM products WHERE tag = 'gift'", false, "closest values of tag: 'ギフト'"},
		{"kana variant in a list", schema.Events, "SELECT event_name FROM events_typed WHERE list_contains(target_audience, '子ども')", false, "closest values of target_audience: '子供'"},
		{"store word in events", schema.Events, "SELECT event_name FROM events_typed WHERE list_has_any(target_audience, ['ファミリー'])", false, "'家族'"},
		{"plural", schema.Stores, "SELECT store_name FROM stores WHERE category IN ('restaurants')", false, "closest values of category: 'restaurant'"},
		// Near misses in text.
		{"trailing space", schema.Stores, "SELECT store_id FROM stores WHERE store_name = 'アラビカ 麻布台ヒルズ '", false, "'アラビカ 麻布台ヒルズ'"},
		{"full-width ampersand", schema.Stores, "SELECT store_name FROM stores WHERE store_name LIKE '%ドッグサロン＆カフェ%'", false, "'ドッグサロン&カフェ わんテラス'"},
		{"name without its suffix", schema.Stores, "SELECT store_name FROM stores WHERE store_name = '中村藤吉'", false, "'中村藤吉 麻布台ヒルズ店'"},
		{"qualified column in a join", schema.Products, "SELECT p.product_name FROM products p JOIN stores s ON s.store_id = p.store_id WHERE s.category = 'Coffee'", false, "category = 'Coffee' matches no row of stores; closest values of category: 'cafe'"},
		{"lower() around the column", schema.Stores, "SELECT store_name FROM stores WHERE lower(category) = 'カフェ'", false, "lower(category) = 'カフェ' matches no row of stores; closest values of category: 'cafe'"},
		{"contains()", schema.Stores, "SELECT store_name FROM stores WHERE contains(store_name, 'ドッグサロン＆カフェ')", false, "closest values of store_name: 'ドッグサロン&カフェ わんテラス'"},
		{"lower() that finds rows", schema.Stores, "SELECT store_name FROM stores WHERE lower(store_name) LIKE '%cafe%' OR category = 'cafe'", true, ""},
		{"a condition in a subquery", schema.Stores, "SELECT store_name FROM stores WHERE store_id IN (SELECT store_id FROM products WHERE tag = 'gift')", false, "tag = 'gift' matches no row of products; closest values of tag: 'ギフト'"},
		// JSON text.
		{"JSON searched for a word", schema.Events, "SELECT event_name FROM events WHERE cost LIKE '%タダ%'", false, `cost holds JSON such as {"is_free"`},
		{"JSON field", schema.Events, "SELECT event_name FROM events WHERE json_extract_string(cost, '$.is_free') = 'yes'", false, "holds only: 'false', 'true'"},
		// Only the condition that fails alone is named.
		{"one of two conditions", schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_name = 'アラビカ'", false, "store_name = 'アラビカ' matches no row"},
		// When no single condition is to blame, the set that matches nothing together, with counts.
		{"each condition matches alone", schema.Stores, "SELECT store_name FROM stores WHERE category = 'bar' AND category = 'cafe'", false,
			"no row matches these conditions together, though each matches rows alone: category = 'bar' matches 2 rows, category = 'cafe' matches 3 rows"},
		// A number: its range in the build.
		{"a number", schema.Products, "SELECT product_name FROM products_typed WHERE price_yen < 0", false, "price_yen < 0 matches no row: products_typed.price_yen runs from 350 to 54000"},
		// A hidden column's values are never shown; the condition is named.
		{"a hidden column is never probed", schema.Products, "SELECT product_name FROM products WHERE store_id = 'STR-00001'", false, "store_id = 'STR-00001' matches no row by itself"},
		{"a CTE named like a table", schema.Stores, "WITH stores AS (SELECT 'x' AS category) SELECT * FROM stores WHERE category = 'カフェ'", false, "category = 'カフェ' matches no row by itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Query(context.Background(), tt.dataset, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Rows) > 0; got != tt.rows {
				t.Fatalf("rows found: %v, want %v (hint %q)", got, tt.rows, res.Hint)
			}
			if tt.hint == "" && res.Hint != "" {
				t.Fatalf("unexpected hint %q", res.Hint)
			}
			if !strings.Contains(res.Hint, tt.hint) {
				t.Fatalf("hint %q does not say %q", res.Hint, tt.hint)
			}
			if tt.hint != "" && !strings.Contains(jsonOf(t, res), `"hint"`) {
				t.Fatalf("the JSON document has no hint:\n%s", jsonOf(t, res))
			}
		})
	}
}

// TestErrorsNameTheFix: a column of another public relation, and a parse error, which is sql_error.
func TestErrorsNameTheFix(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		dataset   *schema.Dataset
		sql       string
		kind      fault.Kind
		msg, hint string
	}{
		{schema.Events, "SELECT event_name FROM events WHERE start_date >= DATE '2025-10-01'", fault.KindSQL, `Referenced column "start_date" not found`,
			"start_date is a column of events_typed: SELECT event_name FROM events_typed WHERE start_date >= DATE '2025-10-01'"},
		{schema.Events, "SELECT * FROM 'events.csv' WHERE is_free", fault.KindSQL, "Candidate bindings", "is_free is a column of events_typed: SELECT * FROM events_typed WHERE is_free"},
		{schema.Products, "SELECT product_name FROM products WHERE price < 3000", fault.KindSQL, "Binder Error",
			"price_yen is a column of products_typed: SELECT product_name FROM products_typed WHERE price_yen < 3000"},
		{schema.Events, "SELECT e.event_name FROM events e WHERE e.end_date > DATE '2025-01-01'", fault.KindSQL, `"end_date"`, "FROM events_typed e WHERE"},
		{schema.Stores, "SELECT store_name FROM stores WHERE day = 'monday'", fault.KindSQL, "Binder Error", "day is a column of store_hours"},
		{schema.Stores, "SELECT nonexistent FROM stores", fault.KindSQL, "Binder Error", ""},
		{schema.Stores, "SELEC 1", fault.KindSQL, `Parser Error: syntax error at or near "SELEC"`, "Did you mean SELECT instead of SELEC?"},
		{schema.Stores, "SELECT * FORM stores", fault.KindSQL, "Parser Error", "Fix the SQL"},
		{schema.Stores, "DROP TABLE stores", fault.KindRefused, "refused: DROP", ""},
	}
	for _, tt := range tests {
		_, err := e.Query(context.Background(), tt.dataset, tt.sql)
		var ce *fault.Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a *fault.Error", tt.sql, err)
			continue
		}
		if ce.Kind != tt.kind || !strings.Contains(ce.Message, tt.msg) || !strings.Contains(ce.Hint, tt.hint) || (tt.hint == "" && ce.Hint != "" && tt.kind == fault.KindSQL) {
			t.Errorf("%s: got kind %s, %q, hint %q; want kind %s, %q, hint %q", tt.sql, ce.Kind, ce.Message, ce.Hint, tt.kind, tt.msg, tt.hint)
		}
	}
}

// TestFirstAttemptsOnOtherData: labels, names and cases unlike the sample's get the same treatment.
func TestFirstAttemptsOnOtherData(t *testing.T) {
	input := t.TempDir()
	sample := ingesttest.SampleInput(t)
	ingesttest.CopyDir(t, sample, input, nil)
	// Other vocabularies: capitalised English categories, English tags, Latin store names.
	rewriteColumn(t, filepath.Join(input, schema.Stores.SourceFile), "category", map[string]string{
		"cafe": "Coffee House", "restaurant": "Dining", "retail": "Shop", "bar": "Pub", "service": "Services"})
	rewriteColumn(t, filepath.Join(input, schema.Stores.SourceFile), "store_name", map[string]string{"アラビカ 麻布台ヒルズ": "ARABICA Tokyo Azabudai"})
	rewriteColumn(t, filepath.Join(input, schema.Products.SourceFile), "tag", map[string]string{
		"ギフト": "Gift Box", "フード": "Deli", "ドリンク": "Beverages", "スイーツ": "Sweets", "雑貨": "Goods"})
	rewriteColumn(t, filepath.Join(input, schema.Products.SourceFile), "store_name", map[string]string{"アラビカ 麻布台ヒルズ": "ARABICA Tokyo Azabudai"})
	live := database.NewLive(ingesttest.Build(t, input))
	t.Cleanup(live.Close)
	e := query.NewEngine(live)
	tests := []struct {
		dataset *schema.Dataset
		sql     string
		rows    bool
		hint    string
	}{
		{schema.Stores, "SELECT store_name FROM stores WHERE category = 'coffee house'", true, ""},
		{schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe'", false, "closest values of category: 'Coffee House'"},
		{schema.Stores, "SELECT store_name FROM stores WHERE category = 'Dinning'", false, "'Dining'"},
		{schema.Stores, "SELECT store_name FROM stores WHERE category = 'ラーメン'", false, "category holds only: 'Coffee House', 'Dining', 'Pub', 'Services', 'Shop'"},
		{schema.Stores, "SELECT store_id FROM stores WHERE store_name = 'ａｒａｂｉｃａ ｔｏｋｙｏ ａｚａｂｕｄａｉ'", false, "'ARABICA Tokyo Azabudai'"},
		{schema.Stores, "SELECT store_id FROM stores WHERE store_name = 'ARABICA'", false, "'ARABICA Tokyo Azabudai'"},
		{schema.Products, "SELECT product_name FROM products WHERE tag = 'GIFT BOX'", true, ""},
		{schema.Products, "SELECT product_name FROM products WHERE tag = 'ギフト'", false, "closest values of tag: 'Gift Box'"},
		{schema.Products, "SELECT product_name FROM products WHERE tag LIKE '%beverage%'", true, ""},
		{schema.Products, "SELECT product_name FROM products WHERE tag = 'drink'", false, "closest values of tag: 'Beverages'"},
	}
	vocab, err := e.Vocabulary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := vocab[schema.VocabKey("stores", "category")]; strings.Join(got, "|") != "Coffee House|Dining|Pub|Services|Shop" {
		t.Errorf("the vocabulary of stores.category is %q", got)
	}
	if help := schema.HelpWith(schema.Products, vocab); !strings.Contains(help, "- tag（products, products_typed）: 'Beverages', 'Deli', 'Gift Box', 'Goods', 'Sweets'") {
		t.Errorf("the products help does not list the build's tags:\n%s", help)
	}
	for _, tt := range tests {
		res, err := e.Query(context.Background(), tt.dataset, tt.sql)
		if err != nil {
			t.Errorf("%s: %v", tt.sql, err)
			continue
		}
		if got := len(res.Rows) > 0; got != tt.rows || !strings.Contains(res.Hint, tt.hint) || (tt.hint == "" && res.Hint != "") {
			t.Errorf("%s: rows %v, hint %q; want rows %v, hint %q", tt.sql, got, res.Hint, tt.rows, tt.hint)
		}
	}
}

// rewriteColumn replaces whole cells of one column of a CSV file.
func rewriteColumn(t *testing.T, path, column string, to map[string]string) {
	t.Helper()
	editColumn(t, path, column, func(v string) string {
		if w, ok := to[v]; ok {
			return w
		}
		return v
	})
}
