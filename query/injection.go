package query

import (
	"github.com/azabudai/ctool/internal/hint"
	"github.com/azabudai/ctool/schema/injection"
)

// nameColumns name a row for the agent, the most particular first: a product's name before its
// store's.
var nameColumns = []string{"product_name", "event_name", "store_name"}

// addressedCells are the cells of res's rows whose text addresses an AI agent (injection.AddressesAI),
// row by row. They are read in Go as the answer holds them, whatever the query selected or computed:
// at most schema.RowCap rows and MaxResultBytes of text.
func addressedCells(res *Result) []hint.Addressed {
	name := -1
	for _, n := range nameColumns {
		for i, c := range res.Columns {
			if c.Name == n && name < 0 {
				name = i
			}
		}
	}
	var out []hint.Addressed
	for r, row := range res.Rows {
		for j, v := range row {
			if !addressesAI(v) {
				continue
			}
			a := hint.Addressed{Row: r, Column: res.Columns[j].Name}
			// The row's name, unless it is the cell itself or addresses an AI too: the note quotes it.
			if s, ok := nameOf(row, name); ok && name != j && !addressesAI(s) {
				a.NameColumn, a.Name = res.Columns[name].Name, s
			}
			out = append(out, a)
		}
	}
	return out
}

func nameOf(row []any, i int) (string, bool) {
	if i < 0 {
		return "", false
	}
	s, ok := row[i].(string)
	return s, ok && s != ""
}

// addressesAI reports whether a value of an answer holds text that addresses an AI agent: a string,
// or one of a list's or a struct's, keys included.
func addressesAI(v any) bool {
	switch x := v.(type) {
	case string:
		_, found := injection.AddressesAI(x)
		return found
	case []any:
		for _, e := range x {
			if addressesAI(e) {
				return true
			}
		}
	case Object:
		for _, f := range x {
			if addressesAI(f.Key) || addressesAI(f.Value) {
				return true
			}
		}
	}
	return false
}
