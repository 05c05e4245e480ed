package hint_test

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// A condition on an offer's free text, with rows or without, gets a note naming the typed column that
// reads the text; a query that names that column, or reads the text without testing it, gets none.
func TestOfferTextNote(t *testing.T) {
	e := newEngine(t)
	note := func(src, col string) string {
		return src + " is free text and may say no, so a test on it also finds stores without it: filter on stores_typed." +
			col + " (true, false, or NULL when unknown) and read " + src + " for the conditions"
	}
	for _, tt := range []struct {
		sql, note string
	}{
		{"SELECT store_name, vegan_info FROM stores WHERE vegan_info IS NOT NULL", note("vegan_info", "vegan_available")},
		{"SELECT store_name FROM stores_typed WHERE vegan_info IS NULL", note("vegan_info", "vegan_available")},
		{"SELECT s.store_name FROM stores s WHERE lower(s.halal_info) LIKE '%halal%'", note("halal_info", "halal_available")},
		{"SELECT store_name FROM stores WHERE store_id IN (SELECT store_id FROM stores WHERE gluten_free_info <> '')", note("gluten_free_info", "gluten_free_available")},
		{"SELECT store_name FROM stores WHERE accessibility LIKE '%車椅子%' OR nursing_room IS NOT NULL",
			note("accessibility", "wheelchair_accessible") + "; " + note("nursing_room", "nursing_room_available")},
		// The typed column is named: the agent reads the text for caveats.
		{"SELECT store_name FROM stores_typed WHERE vegan_available AND vegan_info LIKE '%予約%'", ""},
		{"SELECT s.store_name, s.vegan_available FROM stores_typed s WHERE s.vegan_info LIKE '%予約%'", ""},
		// A string or a comment that spells it names no column.
		{"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL AND store_name <> 'vegan_available'", note("vegan_info", "vegan_available")},
		{"SELECT store_name FROM stores WHERE vegan_info IS NOT NULL -- vegan_available", note("vegan_info", "vegan_available")},
		// Read, not tested.
		{"SELECT store_name, vegan_info FROM stores WHERE category = 'cafe'", ""},
		// The words only in a string or a comment.
		{"SELECT store_name FROM stores WHERE store_name = 'vegan_info' -- nursing_room", ""},
		// A CTE named like a relation is not the stores table.
		{"WITH s AS (SELECT 'x' AS vegan_info) SELECT vegan_info FROM s WHERE vegan_info IS NOT NULL", ""},
	} {
		res, err := e.Query(context.Background(), schema.Stores, tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if res.Note != tt.note {
			t.Errorf("%s:\nnote %q\nwant %q", tt.sql, res.Note, tt.note)
		}
	}
}
