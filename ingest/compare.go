package ingest

import (
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
)

// Comparison is what changed in each dataset since the build validate --against named.
type Comparison struct {
	Against  string          `json:"against"`
	Datasets []DatasetChange `json:"datasets"`
}

// DatasetChange compares one dataset's rows by its key (schema.Dataset.Key). For personal data
// (profiles) it holds counts only: no key, no value and no per-row detail ever leaves the comparison.
type DatasetChange struct {
	Dataset        string        `json:"dataset"`
	Compared       bool          `json:"compared"` // false when this side's files could not be read whole
	Rows           int           `json:"rows"`
	WasRows        int           `json:"was_rows"`
	Added          int           `json:"added"`
	Removed        int           `json:"removed"`
	Changed        int           `json:"changed"`
	ChangedColumns []ColumnCount `json:"changed_columns,omitempty"` // how many changed rows differ in each column
	ColumnsAdded   []string      `json:"columns_added,omitempty"`
	ColumnsRemoved []string      `json:"columns_removed,omitempty"`
	// The first rows by key of each kind (at most sampleRows); never for personal data.
	AddedRows   []RowChange `json:"added_rows,omitempty"`
	RemovedRows []RowChange `json:"removed_rows,omitempty"`
	ChangedRows []RowChange `json:"changed_rows,omitempty"`
}

// ColumnCount is how many rows changed in one column.
type ColumnCount struct {
	Column string `json:"column"`
	Rows   int    `json:"rows"`
}

// RowChange names one row by its key's values, and for a changed row the columns that differ, each
// with its value before and after (Fields, in the order of Columns).
type RowChange struct {
	Key     []string      `json:"key"`
	Columns []string      `json:"columns,omitempty"`
	Fields  []FieldChange `json:"fields,omitempty"`
}

// sampleRows is how many rows of each kind a comparison names: the first ones, in file order.
const sampleRows = 10

// compare lists what changed from old to cur, dataset by dataset.
func compare(against string, old, cur *snapshot) *Comparison {
	return compareKeeping(against, old, cur, nil)
}

// compareKeeping is compare that also keeps, in keep, every row of each kind of each dataset (not
// only the first ones), when keep is not nil.
func compareKeeping(against string, old, cur *snapshot, keep map[string]*rowLists) *Comparison {
	c := &Comparison{Against: against}
	for _, d := range schema.All() {
		ch := DatasetChange{Dataset: d.Name}
		o, n := old.tables[d], cur.tables[d]
		if n == nil || cur.broken[d] || o == nil {
			if n != nil {
				ch.Rows = n.rows()
			}
			if o != nil {
				ch.WasRows = o.rows()
			}
			c.Datasets = append(c.Datasets, ch)
			continue
		}
		ch.Compared = true
		ch.Rows, ch.WasRows = n.rows(), o.rows()
		for j, col := range d.Columns {
			switch {
			case n.present[j] && !o.present[j]:
				ch.ColumnsAdded = append(ch.ColumnsAdded, col.Name)
			case !n.present[j] && o.present[j]:
				ch.ColumnsRemoved = append(ch.ColumnsRemoved, col.Name)
			}
		}
		width := len(d.Columns)
		perColumn := make([]int, width)
		var added, removed, changed, changedWas []int32
		var changedCols [][]string
		var all *rowLists
		if keep != nil && !d.Private {
			all = &rowLists{d: d}
			keep[d.Name] = all
		}
		matched := make([]bool, o.rows()) // old rows the new side has: the rest were removed
		pair := match(n, o)
		for nr, or := range pair {
			ok := or >= 0
			if ok {
				matched[or] = true
			}
			if !ok {
				ch.Added++
				if len(added) < sampleRows {
					added = append(added, int32(nr))
				}
				if all != nil {
					all.added = append(all.added, int32(nr))
				}
				continue
			}
			nh, oh := n.hashes[nr*width:][:width], o.hashes[int(or)*width:][:width]
			var cols []string
			for j := range width {
				if n.present[j] && o.present[j] && nh[j] != oh[j] {
					perColumn[j]++
					if len(changed) < sampleRows || all != nil {
						cols = append(cols, d.Columns[j].Name)
					}
				}
			}
			if differs(n.present, o.present, nh, oh) {
				ch.Changed++
				if len(changed) < sampleRows {
					changed = append(changed, int32(nr))
					changedWas = append(changedWas, or)
					changedCols = append(changedCols, cols)
				}
				if all != nil {
					all.changed = append(all.changed, int32(nr))
					all.was = append(all.was, or)
					all.cols = append(all.cols, cols)
				}
			}
		}
		for or := range o.keyHash {
			if !matched[or] {
				ch.Removed++
				if len(removed) < sampleRows {
					removed = append(removed, int32(or))
				}
				if all != nil {
					all.removed = append(all.removed, int32(or))
				}
			}
		}
		for j, k := range perColumn {
			if k > 0 {
				ch.ChangedColumns = append(ch.ChangedColumns, ColumnCount{d.Columns[j].Name, k})
			}
		}
		if !d.Private && keep == nil {
			// The rows and their values only where they are read whole anyway: a reader of a
			// ChangeSet pages them.
			ch.AddedRows = rowChanges(cur.keyValues(n, added), nil)
			ch.RemovedRows = rowChanges(old.keyValues(o, removed), nil)
			ch.ChangedRows = rowChanges(cur.keyValues(n, changed), changedCols)
			addFieldValues(ch.ChangedRows, d, old, o, changedWas, cur, n, changed)
		}
		c.Datasets = append(c.Datasets, ch)
	}
	return c
}

// addFieldValues puts each changed row's old and new values on its columns. A side whose rows cannot
// be read again leaves the columns without values: the report still names them.
func addFieldValues(rows []RowChange, d *schema.Dataset, old *snapshot, o *table, was []int32, cur *snapshot, n *table, now []int32) {
	if len(rows) == 0 {
		return
	}
	oldVals, err := old.values(o, was)
	if err != nil {
		return
	}
	curVals, err := cur.values(n, now)
	if err != nil {
		return
	}
	for i := range rows {
		if i < len(oldVals) && i < len(curVals) && oldVals[i] != nil && curVals[i] != nil {
			rows[i].Fields = fieldChanges(d, rows[i].Columns, oldVals[i], curVals[i])
		}
	}
}

// differs reports whether two rows differ in a column both sides have.
func differs(np, op []bool, nh, oh []uint64) bool {
	for j := range nh {
		if np[j] && op[j] && nh[j] != oh[j] {
			return true
		}
	}
	return false
}

func rowChanges(keys [][]string, cols [][]string) []RowChange {
	var out []RowChange
	for i, k := range keys {
		rc := RowChange{Key: k}
		if cols != nil {
			rc.Columns = cols[i]
		}
		out = append(out, rc)
	}
	return out
}

// writeComparisonText is the comparison in the text report: a line per dataset, then the rows named.
func writeComparisonText(w io.Writer, c *Comparison) {
	if c == nil {
		return
	}
	// Keys are data: their control characters are shown as escapes, as in every text report.
	fmt.Fprintf(w, "compared with %s:\n", escape.Visible(c.Against))
	for _, ch := range c.Datasets {
		fmt.Fprintf(w, "  %s\n", ch.summary())
		for _, r := range ch.AddedRows {
			fmt.Fprintf(w, "    added %s\n", escape.Visible(strings.Join(r.Key, " / ")))
		}
		for _, r := range ch.RemovedRows {
			fmt.Fprintf(w, "    removed %s\n", escape.Visible(strings.Join(r.Key, " / ")))
		}
		for _, r := range ch.ChangedRows {
			fmt.Fprintf(w, "    changed %s: %s\n", escape.Visible(strings.Join(r.Key, " / ")), strings.Join(r.Columns, ", "))
			for _, f := range r.Fields {
				fmt.Fprintf(w, "      %s: %s → %s\n", f.Column, escape.Quote(f.Old), escape.Quote(f.New))
			}
		}
	}
}

// summary is one line about a dataset's change.
func (ch DatasetChange) summary() string {
	if !ch.Compared {
		return fmt.Sprintf("%s: not compared (its files have problems)", ch.Dataset)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows (was %d): %d added, %d removed, %d changed", ch.Dataset, ch.Rows, ch.WasRows, ch.Added, ch.Removed, ch.Changed)
	if len(ch.ChangedColumns) > 0 {
		var parts []string
		for _, cc := range ch.ChangedColumns {
			parts = append(parts, fmt.Sprintf("%s %d", cc.Column, cc.Rows))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	if len(ch.ColumnsAdded) > 0 {
		fmt.Fprintf(&b, "; columns added: %s", strings.Join(ch.ColumnsAdded, ", "))
	}
	if len(ch.ColumnsRemoved) > 0 {
		fmt.Fprintf(&b, "; columns removed: %s", strings.Join(ch.ColumnsRemoved, ", "))
	}
	return b.String()
}
