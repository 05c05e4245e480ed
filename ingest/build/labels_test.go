package build

import (
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
)

// TestLabelsCompareWithoutCase checks every label column schema/ declares: an upper-cased literal finds
// the row, and the stored text comes back exactly as it was loaded.
func TestLabelsCompareWithoutCase(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	insertStore(t, db, "S1", `{"tuesday": [{"open": "10:00", "close": "20:00"}]}`, `[{"type": "holiday", "date": "2025-10-04", "reason": "点検"}]`)
	if _, err := db.Exec(`INSERT INTO products (store_id, store_name, product_name, tag) VALUES ('S1', '店舗S1', '茶', 'Gift')`); err != nil {
		t.Fatal(err)
	}
	mustFill(t, db)
	stored := map[string]string{"category": "cafe", "extraction_status": "success", "tag": "Gift", "day": "tuesday", "type": "holiday"}
	labels := schema.LabelColumns()
	if len(labels) < 8 {
		t.Fatalf("only %d label columns declared: %v", len(labels), labels)
	}
	for _, l := range labels {
		if l.List {
			continue // lists of labels are matched through the empty-result hint, not a collation
		}
		t.Run(l.Relation+"."+l.Column, func(t *testing.T) {
			want, ok := stored[l.Column]
			if !ok {
				t.Fatalf("no stored value for %s in this test", l.Column)
			}
			var got string
			q := fmt.Sprintf(`SELECT %q FROM %q WHERE %q = ?`, l.Column, l.Relation, l.Column)
			if err := db.QueryRow(q, strings.ToUpper(want)).Scan(&got); err != nil {
				t.Fatalf("%s = %q: %v", l.Column, strings.ToUpper(want), err)
			}
			if got != want {
				t.Errorf("stored text %q, want %q byte for byte", got, want)
			}
		})
	}
}
