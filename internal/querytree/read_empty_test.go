package querytree

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/internal/guard"
)

func TestEmptyMeansNoMatch(t *testing.T) {
	conn := standIn(t)
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT name FROM stores WHERE category = 'x'", true},
		{"SELECT DISTINCT name FROM stores WHERE category = 'x' ORDER BY name", true},
		{"SELECT s.name, upper(s.category) FROM stores s JOIN stores t ON s.name = t.name WHERE s.n > 1", true},
		{"WITH w AS (SELECT 1 AS a) SELECT a FROM w WHERE a = 2", true},
		{"SELECT count(*) FROM stores WHERE category = 'x'", true},
		{"SELECT name FROM stores WHERE category = 'x' LIMIT 5", false},
		{"SELECT name FROM stores WHERE category = 'x' OFFSET 5", false},
		{"SELECT category, count(*) FROM stores WHERE n > 1 GROUP BY category", false},
		{"SELECT category, count(*) FROM stores WHERE n > 1 GROUP BY ALL", false},
		{"SELECT count(*) FROM stores WHERE n > 1 HAVING count(*) > 5", false},
		{"SELECT name FROM stores WHERE n > 1 QUALIFY row_number() OVER () > 3", false},
		{"SELECT name FROM stores WHERE n > 1 USING SAMPLE 1", false},
		{"SELECT name FROM stores TABLESAMPLE 1 WHERE n > 1", true}, // the FROM's own sample found none
		{"SELECT unnest([name]) FROM stores WHERE n > 1", false},
		{"SELECT upper(UNNEST(list_value(name))) FROM stores WHERE n > 1", false},
		{"SELECT unlist([name]) FROM stores WHERE n > 1", false},
	} {
		stmt, err := guard.Parse(context.Background(), conn, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		s, ok := TopSelect(stmt)
		if got := ok && s.EmptyMeansNoMatch(); got != tc.want {
			t.Errorf("%s: EmptyMeansNoMatch %v, want %v", tc.sql, got, tc.want)
		}
	}
	stmt, err := guard.Parse(context.Background(), conn, "SELECT name FROM stores WHERE n > 1 UNION SELECT name FROM stores")
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := TopSelect(stmt); ok && s.EmptyMeansNoMatch() {
		t.Error("a UNION's first SELECT is taken for the statement")
	}
}
