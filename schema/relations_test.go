package schema

import (
	"strings"
	"testing"
)

func TestRelationsResolveColumns(t *testing.T) {
	tests := []struct {
		relation string
		kind     RelationKind
		column   string
		typ      string
		index    int // -1: anywhere
		label    bool
		list     bool
	}{
		{"events", TableRelation, "event_name", "VARCHAR", 0, false, false},
		{"events.csv", AliasRelation, "target_audience", "VARCHAR", -1, false, false},
		// a typed view keeps the table's order, retyping what it declares, then adds its own
		{"events_typed", ViewRelation, "event_name", "VARCHAR", 0, false, false},
		{"events_typed", ViewRelation, "target_audience", "VARCHAR[]", len(Events.Columns) - 1, true, true},
		{"events_typed", ViewRelation, "start_date", "DATE", len(Events.Columns), false, false},
		{"stores", TableRelation, "category", "VARCHAR", -1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.relation+"."+tt.column, func(t *testing.T) {
			r, ok := RelationNamed(strings.ToUpper(tt.relation))
			if !ok {
				t.Fatalf("no relation %s", tt.relation)
			}
			if r.Kind != tt.kind {
				t.Errorf("kind %d, want %d", r.Kind, tt.kind)
			}
			for i, c := range r.Columns {
				if c.Name != tt.column {
					continue
				}
				if c.Type != tt.typ || c.Label() != tt.label || c.List() != tt.list || (tt.index >= 0 && i != tt.index) {
					t.Errorf("column %d %s %s label=%v list=%v, want %d %s label=%v list=%v", i, c.Name, c.Type, c.Label(), c.List(), tt.index, tt.typ, tt.label, tt.list)
				}
				return
			}
			t.Errorf("%s has no column %s", tt.relation, tt.column)
		})
	}
}

// TestRelationsCoverEveryName: every name a dataset answers to, and only those, is a relation.
func TestRelationsCoverEveryName(t *testing.T) {
	var want []string
	for _, d := range Public() {
		want = append(append(want, d.Table), d.Aliases...)
		for _, v := range d.Views {
			want = append(want, v.Name)
		}
	}
	var got []string
	for _, r := range Relations() {
		got = append(got, r.Name)
		if r.Extends() {
			for _, c := range r.Dataset.Columns {
				if !hasColumn(r, c.Name) {
					t.Errorf("%s extends %s but lacks %s", r.Name, r.Dataset.Table, c.Name)
				}
			}
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("relations %v, want %v", got, want)
	}
	if _, ok := RelationNamed(Profiles.Table); ok {
		t.Error("a private dataset's table is a public relation")
	}
}

func hasColumn(r Relation, name string) bool {
	for _, c := range r.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}
