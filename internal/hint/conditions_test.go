package hint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/database/databasetest"
	"github.com/azabudai/ctool/internal/guard"
)

// TestConditionsFound parses known queries with DuckDB and reads their conditions: if a DuckDB release
// changes the AST the reader relies on, this fails instead of the empty-result hints going quiet.
func TestConditionsFound(t *testing.T) {
	conn := databasetest.StandIn(t)
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
		// Past maxConditions, the rest are counted once each.
		{"SELECT * FROM stores WHERE category IN ('1') OR category IN ('2') OR category IN ('3') OR category IN ('4') OR category IN ('5') " +
			"OR category IN ('6') OR category IN ('7') OR category IN ('8') OR category IN ('9') OR category IN ('10') OR category IN ('9')",
			"stores.category IN: category IN ('1') | stores.category IN: category IN ('2') | stores.category IN: category IN ('3') | " +
				"stores.category IN: category IN ('4') | stores.category IN: category IN ('5') | stores.category IN: category IN ('6') | " +
				"stores.category IN: category IN ('7') | stores.category IN: category IN ('8') | 2 more"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			stmt, err := guard.Parse(context.Background(), conn, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			conds, more := collectConditions(stmt)
			var got []string
			for _, c := range conds {
				got = append(got, fmt.Sprintf("%s.%s %s: %s", c.col.relation, c.col.name, c.op, c.text))
			}
			if more > 0 {
				got = append(got, fmt.Sprintf("%d more", more))
			}
			if g := strings.Join(got, " | "); g != tt.want {
				t.Errorf("conditions\n%s\nwant\n%s", g, tt.want)
			}
		})
	}
}
