package hint

import (
	"context"
	"fmt"
	"testing"

	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// TestPassingStores: the stores of unknown hours (the sample's are ビストロ ラ・フォンテーヌ, a
// restaurant, and セレクトショップ ノード, a shop) that a query's conditions other than its hours let
// through, for every way of reading hours; a query that cannot be run without its hours says so.
func TestPassingStores(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	const both = "2 ['ビストロ ラ・フォンテーヌ' 'セレクトショップ ノード']"
	for _, tc := range []struct{ sql, want string }{
		{"SELECT store_name FROM stores s WHERE NOT EXISTS (SELECT 1 FROM store_hours h WHERE h.store_id = s.store_id AND h.day = 'monday')", both},
		{"SELECT store_name FROM stores WHERE category = 'restaurant' AND is_open(store_id, TIMESTAMP '2025-10-03 19:30')", "1 ['ビストロ ラ・フォンテーヌ']"},
		{"SELECT store_name FROM stores_typed WHERE category = 'cafe' AND is_open(store_id, tokyo_now())", "0 []"},
		{"SELECT s.store_name FROM stores s JOIN store_hours h USING (store_id) WHERE h.day = 'monday' AND s.category = 'retail'", "1 ['セレクトショップ ノード']"},
		{"SELECT s.store_name, h.opens FROM store_hours h JOIN stores_typed s ON s.store_id = h.store_id WHERE lower(s.store_name) LIKE '%ビストロ%' AND h.opens < TIME '12:00'", "1 ['ビストロ ラ・フォンテーヌ']"},
		{"SELECT s.store_name FROM stores s LEFT JOIN store_hours h ON h.store_id = s.store_id AND h.day = 'monday' WHERE h.store_id IS NULL", both},
		{"SELECT count(DISTINCT store_id) AS n FROM store_hours", both},
		{"SELECT day, opens FROM store_hours WHERE store_name LIKE '%マーケット%'", "0 []"},
		{"SELECT day FROM store_hours h WHERE h.store_id = 'STR-0015' ORDER BY day LIMIT 3", "1 ['セレクトショップ ノード']"},
		{"SELECT 1 AS one FROM stores AS s WHERE s.store_id IN (SELECT x.store_id FROM (SELECT s.* FROM stores AS s) AS x) AND is_open(s.store_id, TIMESTAMP '2025-10-03 19:30')", both},
		{"SELECT p.product_name FROM products p JOIN stores s USING (store_id) WHERE p.tag = 'ギフト' AND is_open(s.store_id, tokyo_now())", "0 []"},
		// Not without its hours: the FROM keeps store_hours' rows, a join reads the table left out,
		// names the statement gives a meaning of its own, a set operation.
		{"WITH h AS (SELECT * FROM store_hours) SELECT s.store_name FROM stores s JOIN h USING (store_id)", "not run"},
		{"SELECT s.store_name FROM stores s JOIN (SELECT store_id FROM store_hours) h USING (store_id)", "not run"},
		{"SELECT s.store_name FROM stores s JOIN store_hours h ON h.store_id = s.store_id JOIN products p ON p.store_id = h.store_id", "not run"},
		{"SELECT ctool_u.store_name FROM stores ctool_u WHERE is_open(store_id, tokyo_now())", "not run"},
		{"WITH stores_typed AS (SELECT * FROM stores) SELECT store_name FROM stores_typed WHERE is_open(store_id, tokyo_now())", "not run"},
		{"WITH stores AS (SELECT * FROM stores_typed WHERE category = 'cafe') SELECT store_name FROM stores WHERE is_open(store_id, tokyo_now())", "not run"},
		{"SELECT store_id FROM store_hours UNION SELECT store_id FROM stores", "not run"},
		{"SELECT e.event_name FROM events e, store_hours h WHERE h.day = 'monday'", "not run"},
	} {
		stmt, err := guard.Parse(ctx, conn, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		got := "not run"
		if list, ok := passingStores(ctx, conn, nil, stmt, guard.ForDataset(schema.Stores)); ok {
			got = fmt.Sprintf("%d %s", list.n, quoted(list.names))
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
}

func quoted(names []string) string {
	out := "["
	for i, n := range names {
		if i > 0 {
			out += " "
		}
		out += schema.QuoteString(n)
	}
	return out + "]"
}
