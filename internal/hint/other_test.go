package hint_test

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// TestEmptyHintsOnOtherData: every kind of empty answer explains itself on data unlike the sample:
// events that all end before today, no bar category but bars by name, a name with an ideographic
// space, tags in English, and the sample's stores of unknown hours.
func TestEmptyHintsOnOtherData(t *testing.T) {
	input := t.TempDir()
	ingesttest.CopyDir(t, ingesttest.SampleInput(t), input, nil)
	stores := filepath.Join(input, schema.Stores.SourceFile)
	rewriteColumn(t, stores, "category", map[string]string{"bar": "restaurant"})
	rewriteColumn(t, stores, "store_name", map[string]string{"バー ルミエール": "BAR 深夜二時 ルミエール", "ジェラテリア ソルベ": "ジェラテリア\u3000ソルベ"})
	rewriteColumn(t, filepath.Join(input, schema.Products.SourceFile), "tag", map[string]string{"スイーツ": "Sweets", "ギフト": "Gift Box"})
	editColumn(t, filepath.Join(input, schema.Events.SourceFile), "date_time", func(string) string { return "2025-10-01/2025-12-28" })
	live := database.NewLive(ingesttest.Build(t, input))
	t.Cleanup(live.Close)
	e := query.NewEngine(live)
	for _, tt := range []struct {
		name    string
		dataset *schema.Dataset
		sql     string
		hint    []string // parts of the hint, in order
	}{
		{"a date window after the data", schema.Events, "SELECT event_name FROM events_typed WHERE CAST(tokyo_now() AS DATE) BETWEEN start_date AND end_date",
			[]string{"events_typed.start_date runs from 2025-10-01 to 2025-10-01", "events_typed.end_date runs from 2025-12-28 to 2025-12-28", "today in Tokyo is "}},
		{"current_date", schema.Events, "SELECT event_name FROM events_typed WHERE end_date >= current_date",
			[]string{"end_date >= current_date", "events_typed.end_date runs from 2025-12-28 to 2025-12-28; today in Tokyo is "}},
		{"December on the raw text", schema.Events, "SELECT event_name FROM events WHERE date_time LIKE '2026-12%'",
			[]string{"events.date_time runs from 2025-10-01 to 2025-12-28"}},
		{"two conditions never together", schema.Stores, "SELECT store_name FROM stores_typed WHERE category = 'cafe' AND store_name LIKE '%鮨%'",
			[]string{"no row matches these conditions together, though each matches rows alone: category = 'cafe' matches 3 rows, store_name LIKE '%鮨%' matches 1 row"}},
		{"a label that is a word in names", schema.Stores, "SELECT store_name FROM stores WHERE category = 'bar'",
			[]string{"category = 'bar' matches no row of stores", "'bar' (or 'バー', '酒場', 'pub') occurs in store_name of 2 stores"}},
		{"a label word nowhere", schema.Products, "SELECT product_name FROM products WHERE tag = 'スナック'",
			[]string{"tag holds only: 'Gift Box', 'Sweets', 'ドリンク', 'フード', '雑貨'", "'スナック' occurs in no text of products either: search store_name, product_name, product_description"}},
		{"a label in another language", schema.Products, "SELECT product_name FROM products WHERE tag = 'スイーツ'",
			[]string{"closest values of tag: 'Sweets'", "occurs in"}},
		{"an ideographic space", schema.Stores, "SELECT store_id FROM stores WHERE store_name = 'ジェラテリア ソルベ'",
			[]string{"closest values of store_name: 'ジェラテリア\u3000ソルベ'", "has U+3000 IDEOGRAPHIC SPACE where the query has U+0020 SPACE"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Query(context.Background(), tt.dataset, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 0 {
				t.Fatalf("%d rows, want none", len(res.Rows))
			}
			rest := res.Hint
			for _, want := range tt.hint {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("hint %q\nlacks (in order) %q", res.Hint, want)
				}
				rest = rest[i+len(want):]
			}
		})
	}
	// Unknown hours are not closed: an answer over store_hours names the stores of unknown hours that
	// its other conditions let through, and only when there are some.
	both := "2 stores of unknown hours (stores_typed.hours_known = false) pass the query's other conditions: 'ビストロ ラ・フォンテーヌ', 'セレクトショップ ノード'; " +
		"they have no store_hours rows and is_open is false for them, which does not mean closed"
	for _, tt := range []struct{ sql, note string }{
		{"SELECT store_name FROM stores s WHERE NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')", both},
		// Rows of store_hours alone are hours: no store of unknown hours can be one of them.
		{"SELECT count(DISTINCT store_id) AS n FROM store_hours", ""},
		{"SELECT DISTINCT store_name FROM store_hours WHERE day = 'monday'", ""},
		{"SELECT h.day FROM store_hours h WHERE h.store_id IN (SELECT store_id FROM stores WHERE category = 'retail')", ""},
		{"SELECT n FROM (SELECT count(*) AS n FROM store_hours h JOIN store_hours g USING (store_id))", ""},
		// Rows of stores joined to their hours are filtered by them.
		{"SELECT s.store_name FROM stores s JOIN store_hours h USING (store_id) WHERE h.day = 'monday' AND s.category = 'retail'",
			"1 store of unknown hours (stores_typed.hours_known = false) passes the query's other conditions: 'セレクトショップ ノード'; " +
				"it has no store_hours rows and is_open is false for it, which does not mean closed"},
		{"SELECT store_name FROM stores WHERE category = 'restaurant' AND is_open(store_id, TIMESTAMP '2025-10-03 19:30')",
			"1 store of unknown hours (stores_typed.hours_known = false) passes the query's other conditions: 'ビストロ ラ・フォンテーヌ'; " +
				"it has no store_hours rows and is_open is false for it, which does not mean closed"},
		{"SELECT store_name FROM stores WHERE category = 'cafe' AND is_open(store_id, TIMESTAMP '2025-10-03 19:30')", ""},
		{"SELECT day, opens, closes FROM store_hours WHERE store_name LIKE '%マーケット%'", ""},
		{"SELECT store_name FROM stores WHERE category = 'cafe'", ""},
	} {
		res, err := e.Query(context.Background(), schema.Stores, tt.sql)
		if err != nil {
			t.Fatal(err)
		}
		if res.Note != tt.note {
			t.Errorf("%s:\nnote %q\nwant %q", tt.sql, res.Note, tt.note)
		}
		if b, _ := jsonText(render.Document(res)); strings.Contains(b, `"note"`) != (tt.note != "") {
			t.Errorf("%s: the answer's note: %s", tt.sql, b)
		}
	}
}

// editColumn rewrites every cell of one column of a CSV file.
func editColumn(t *testing.T, path, column string, edit func(string) string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range records[0] {
		if strings.TrimPrefix(h, "\ufeff") == column {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("%s has no column %s", path, column)
	}
	for _, r := range records[1:] {
		r[col] = edit(r[col])
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(records)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func jsonText(v any) (string, error) {
	var b strings.Builder
	err := textoutJSON(&b, v)
	return b.String(), err
}

var textoutJSON = textout.JSONLine
