package hint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/guard/guardtest"
)

// TestConditionsFound parses known queries with DuckDB and reads their conditions: if a DuckDB release
// changes the AST the reader relies on, this fails instead of the empty-result hints going quiet.
func TestConditionsFound(t *testing.T) {
	conn := guard.NewConn(guardtest.OpenStandIn(t), nil)
	tests := []struct {
		sql  string
		want string // each condition as "relation.column op: text", joined by " | "
	}{
		{"SELECT * FROM stores WHERE category = 'cafe'", "stores.category =: category = 'cafe'"},
		{"SELECT * FROM stores s WHERE 'cafe' = s.category AND lower(store_name) LIKE '%x%'",
			"stores.category =: category = 'cafe' | stores.store_name LIKE: lower(store_name) LIKE '%x%'"},
		{"SELECT * FROM products_typed WHERE tag IN ('a', 'b') OR product_name ILIKE 'c%'",
			"products_typed.tag IN: tag IN ('a', 'b') | products_typed.product_name ILIKE: product_name ILIKE 'c%'"},
		{"SELECT * FROM events_typed WHERE list_has_any(target_audience, ['家族']) AND list_contains(target_audience, '子供')",
			"events_typed.target_audience list_has_any: list_has_any(target_audience, ['家族']) | events_typed.target_audience list_contains: list_contains(target_audience, '子供')"},
		{"SELECT * FROM events WHERE json_extract_string(location, '$.venue') = 'Hall'",
			"events.location json: json_extract_string(location, '$.venue') = 'Hall'"},
		{"SELECT * FROM stores WHERE contains(description, 'x')", "stores.description contains: contains(description, 'x')"},
		{"SELECT * FROM stores JOIN products p USING (store_id) WHERE p.tag = 'x' AND stores.category = 'y'",
			"products.tag =: tag = 'x' | stores.category =: category = 'y'"},
		{"SELECT * FROM (SELECT * FROM stores WHERE category = 'a') WHERE store_name = 'b'",
			"stores.category =: category = 'a'"},
		// A CTE named like a table shadows it; a hidden column is never probed.
		{"WITH stores AS (SELECT 1 AS category) SELECT * FROM stores WHERE category = 'a'", ""},
		{"SELECT * FROM products WHERE store_id = 'S1'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			stmt, err := guard.Parse(context.Background(), conn, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range collectConditions(stmt) {
				got = append(got, fmt.Sprintf("%s.%s %s: %s", c.col.relation, c.col.name, c.op, c.text))
			}
			if g := strings.Join(got, " | "); g != tt.want {
				t.Errorf("conditions\n%s\nwant\n%s", g, tt.want)
			}
		})
	}
}
