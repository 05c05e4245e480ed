package migrations

import (
	"fmt"
	"testing"
)

// A NULL the build writes is an untyped nil in its row: a typed nil (a nil []string, say) is a value to
// DuckDB's appender, not NULL. The rows' values are the Go types of their columns.
func TestDerivedRowsWriteNullAsNil(t *testing.T) {
	for _, tt := range []struct {
		name string
		row  []any
		want string
	}{
		{"no price", Price{NoPrice, NoPrice, true}.Values(), "[<nil> <nil> bool(true)]"},
		{"one price", Price{500, NoPrice, false}.Values(), "[int32(500) <nil> bool(false)]"},
		{"a range", Price{500, 800, false}.Values(), "[int32(500) int32(800) bool(false)]"},
		{"every day", WeekdaysRow("", "", ""), "[<nil>]"},
		{"no venue", NewEventStores(nil).Row("どこか"), "[<nil> <nil>]"},
		{"unknown cell", UnknownCell{Table: "stores", Row: 2, Column: "parking", File: "s.csv", Line: 4, Rule: "schema"}.Values(),
			"[string(stores) string(s.csv) int64(4) string(parking) string(schema) int64(2)]"},
	} {
		if got := typed(tt.row); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	masks := UnknownMasks([]UnknownCell{{Table: "stores", Row: 1, Column: "parking"}, {Table: "events", Row: 0, Column: "cost"},
		{Table: "stores", Row: 1, Column: "menu"}, {Table: "stores", Row: 9, Column: "menu"}}, "stores", 3)
	if got := typed(masks[0]) + typed(masks[1]) + typed(masks[2]); got != "[<nil>][[]string([parking menu])][<nil>]" {
		t.Errorf("masks %s", got)
	}
}

// typed shows a row's values with their types.
func typed(row []any) string {
	s := "["
	for i, v := range row {
		if i > 0 {
			s += " "
		}
		if v == nil {
			s += "<nil>"
		} else {
			s += fmt.Sprintf("%T(%v)", v, v)
		}
	}
	return s + "]"
}
