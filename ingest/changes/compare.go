// Package changes compares with a previous build: the input with it, for validate --against's
// contracts (Against, wired in by ingest.Validate); a build with it, for the console's pages of what
// changed (Compare); and a build with the input it was made from, for `ctool status` (ReadStatus). It
// reads builds as every reader does, read-only, and input files through ingest/validation; it never
// writes a build.
package changes

import (
	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// sampleRows is how many rows of each kind a comparison names: the first ones, in file order.
const sampleRows = 10

// diff lists what changed from old to cur, dataset by dataset.
func diff(against string, old, cur *snapshot) *validation.Comparison {
	return diffKeeping(against, old, cur, nil)
}

// diffKeeping is diff that also keeps, in keep, every row of each kind of each dataset (not
// only the first ones), when keep is not nil.
func diffKeeping(against string, old, cur *snapshot, keep map[string]*rowLists) *validation.Comparison {
	c := &validation.Comparison{Against: against}
	for _, d := range schema.All() {
		ch := validation.DatasetChange{Dataset: d.Name}
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
				ch.ChangedColumns = append(ch.ChangedColumns, validation.ColumnCount{Column: d.Columns[j].Name, Rows: k})
			}
		}
		if !d.Private && keep == nil {
			// The rows and their values only where they are read whole anyway: a reader of a
			// Set pages them.
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
func addFieldValues(rows []validation.RowChange, d *schema.Dataset, old *snapshot, o *table, was []int32, cur *snapshot, n *table, now []int32) {
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

func rowChanges(keys [][]string, cols [][]string) []validation.RowChange {
	var out []validation.RowChange
	for i, k := range keys {
		rc := validation.RowChange{Key: k}
		if cols != nil {
			rc.Columns = cols[i]
		}
		out = append(out, rc)
	}
	return out
}
