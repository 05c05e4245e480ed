package words

import (
	"testing"

	"github.com/azabudai/ctool/schema"
)

// jaLabels holds only the labels the description rule does not give: an entry that says what the
// column's description already says is one to remove; and every entry of the label tables names a
// column of a typed relation the console lists (each dataset's first view).
func TestJaLabelsOnlyWhereTheRuleFails(t *testing.T) {
	used := map[string]bool{}
	for _, d := range []*schema.Dataset{schema.Stores, schema.Events, schema.Products} {
		rel, ok := schema.RelationNamed(d.Views[0].Name)
		if !ok {
			t.Fatalf("no relation %s", d.Views[0].Name)
		}
		for _, c := range rel.Columns {
			desc := ""
			if c.Base != nil {
				desc = c.Base.Description
			} else if c.View != nil {
				desc = c.View.Description
			}
			if l := lookupLabel(jaLabels, d.Name, c.Name); l != "" && shortLabel(desc) == l {
				t.Errorf("jaLabels gives %s.%s what its description does", d.Name, c.Name)
			}
			used[c.Name], used[d.Name+"."+c.Name] = true, true
		}
	}
	for _, m := range []map[string]string{jaLabels, enLabels} {
		for key := range m {
			if !used[key] {
				t.Errorf("the label of %s names no column of a list", key)
			}
		}
	}
}
