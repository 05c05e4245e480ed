package changes

import (
	"encoding/json"
	"testing"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// productsSnapshot fingerprints products rows as validation would see them in one file.
func productsSnapshot(header []string, rows ...[]string) *snapshot {
	s := newSnapshot()
	f := &validation.File{Dataset: schema.Products, Name: "filtered_product_data.csv", Header: header}
	for _, r := range rows {
		s.record(f, r)
	}
	return s
}

func TestCompare(t *testing.T) {
	header := []string{"store_id", "store_name", "product_name", "product_description", "tag"}
	old := productsSnapshot(header,
		[]string{"STR-0001", "市場", "寿司", "2,480円", "フード"},
		[]string{"STR-0001", "市場", "パン", "300円", "フード"},
		[]string{"STR-0002", "カフェ", "パン", "400円", "フード"}, // same name, another store: another product
		[]string{"STR-0002", "カフェ", "ラテ", "500円", ""},
		[]string{"STR-0003", "花", "ブーケ", "3,000円", "ギフト"},
		[]string{"STR-0003", "花", "ブーケ", "3,000円", "ギフト"}, // a repeated key is matched by occurrence
	)
	// The new file has the columns in another order: rows are compared by column name.
	reordered := []string{"product_name", "store_id", "store_name", "tag", "product_description"}
	cur := productsSnapshot(reordered,
		[]string{"寿司", "STR-0001", "市場", "フード", "2,480円"},
		[]string{"パン", "STR-0001", "市場", "ギフト", "350円"},
		[]string{"パン", "STR-0002", "カフェ", "フード", "400円"},
		[]string{"ケーキ", "STR-0002", "カフェ", "", "600円"},
		[]string{"ブーケ", "STR-0003", "花", "ギフト", "3,000円"},
	)
	got := diff("old", old, cur)
	b, _ := json.Marshal(got.Datasets[2])
	want := `{"dataset":"products","compared":true,"rows":5,"was_rows":6,"added":1,"removed":2,"changed":1,` +
		`"changed_columns":[{"column":"product_description","rows":1},{"column":"tag","rows":1}],` +
		`"added_rows":[{"key":["STR-0002","ケーキ"]}],` +
		`"removed_rows":[{"key":["STR-0002","ラテ"]},{"key":["STR-0003","ブーケ (#2)"]}],` +
		`"changed_rows":[{"key":["STR-0001","パン"],"columns":["product_description","tag"]}]}`
	if string(b) != want {
		t.Errorf("products\n got %s\nwant %s", b, want)
	}
	// Datasets neither side read are not compared.
	if got.Datasets[0].Dataset != "stores" || got.Datasets[0].Compared {
		t.Errorf("stores: %+v", got.Datasets[0])
	}

	// A column only one side has is reported, and changes in it are not.
	fewer := productsSnapshot(header[:4], []string{"STR-0001", "市場", "寿司", "2,480円"})
	ch := diff("old", old, fewer).Datasets[2]
	if len(ch.ColumnsRemoved) != 1 || ch.ColumnsRemoved[0] != "tag" || ch.Changed != 0 {
		t.Errorf("a column removed: %+v", ch)
	}
}

// TestCompareProfilesCountsOnly: personal data is counted, never named.
func TestCompareProfilesCountsOnly(t *testing.T) {
	header := schema.Profiles.ColumnNames()
	snap := func(name string, rows ...[]string) *snapshot {
		s := newSnapshot()
		f := &validation.File{Dataset: schema.Profiles, Name: name, Header: header}
		for _, r := range rows {
			s.record(f, r)
		}
		return s
	}
	old := snap("narrative_data.csv", []string{"user_a", "30", "女性", "t", "STR-0001", "市場", "3", "n"})
	cur := snap("narrative_data.csv", []string{"user_a", "31", "女性", "t", "STR-0001", "市場", "3", "n"},
		[]string{"user_b", "40", "男性", "t", "STR-0001", "市場", "1", "n"})
	b, _ := json.Marshal(diff("old", old, cur).Datasets[3])
	want := `{"dataset":"profiles","compared":true,"rows":2,"was_rows":1,"added":1,"removed":0,"changed":1,"changed_columns":[{"column":"age","rows":1}]}`
	if string(b) != want {
		t.Errorf("profiles\n got %s\nwant %s", b, want)
	}
}

// Every derived value shown is a column of its dataset's typed relation (or the hours as rows), derived
// from columns of the dataset.
func TestDerivedColumnsExist(t *testing.T) {
	for name, cols := range derivedColumns {
		d, err := schema.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := schema.RelationNamed(d.Views[0].Name)
		if !ok {
			t.Fatalf("%s has no typed relation", name)
		}
		for _, dc := range cols {
			found := dc.name == StoreHours && d == schema.Stores
			for _, c := range rel.Columns {
				found = found || c.Name == dc.name
			}
			if !found {
				t.Errorf("%s: %s is no column of %s", name, dc.name, rel.Name)
			}
			for _, f := range dc.from {
				if columnIndex(d, f) < 0 {
					t.Errorf("%s: %s is derived from %s, no column of it", name, dc.name, f)
				}
			}
		}
	}
}
