package changes

import (
	"context"
	"slices"
	"sync"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// Set is a comparison of a build with a previous one that keeps every row it found added,
// removed or changed, for a reader to page through with the values. It covers the public datasets
// only: the profiles file is never opened.
type Set struct {
	Against  string
	Datasets []validation.DatasetChange
	cur, old *snapshot
	all      map[string]*rowLists
	mu       sync.Mutex // one reader of the builds' connections at a time
}

// rowLists are a dataset's rows of each kind: added and changed in the current side, removed in the
// previous one, and for each changed row its previous row and the columns that differ.
type rowLists struct {
	d                       *schema.Dataset
	added, removed, changed []int32
	was                     []int32
	cols                    [][]string
}

// Kinds of change a Set lists.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// RowDiff is one row of a change: its key and the fields (for an added or removed row, every field
// with a value; for a changed one, those that differ).
type RowDiff struct {
	Key    []string                 `json:"key"`
	Name   string                   `json:"name,omitempty"` // the row's name where its key does not say it (NameColumn)
	Fields []validation.FieldChange `json:"fields"`
}

// NameColumn is the column that names a dataset's rows beside their key, "" where the key names them:
// a store's name (stores, and a product's store), none for events (the key is the event's name).
func NameColumn(d *schema.Dataset) string {
	for _, name := range []string{"store_name", "event_name", "product_name"} {
		if columnIndex(d, name) >= 0 && !slices.Contains(d.Key, name) {
			return name
		}
	}
	return ""
}

// Compare compares the build at db with against, a previous build's database file or an input
// directory (as validate --against reads it), on the public datasets. Close the Set when done.
func Compare(ctx context.Context, db, against string) (_ *Set, err error) {
	cur, err := readBuild(ctx, db, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && cur.close != nil {
			cur.close()
		}
	}()
	old, err := readAgainst(ctx, against, true)
	if err != nil {
		return nil, err
	}
	for d := range old.tables {
		if d.Private {
			delete(old.tables, d)
		}
	}
	cs := &Set{Against: against, cur: cur, old: old, all: map[string]*rowLists{}}
	c := diffKeeping(against, old, cur, cs.all)
	for _, ch := range c.Datasets {
		if d, _ := schema.ByName(ch.Dataset); d != nil && !d.Private {
			cs.Datasets = append(cs.Datasets, ch)
		}
	}
	return cs, nil
}

// Count is how many rows of a kind a dataset has.
func (c *Set) Count(dataset, kind string) int {
	l := c.all[dataset]
	if l == nil {
		return 0
	}
	return len(l.list(kind))
}

func (l *rowLists) list(kind string) []int32 {
	switch kind {
	case Added:
		return l.added
	case Removed:
		return l.removed
	case Changed:
		return l.changed
	}
	return nil
}

// Diffs returns rows offset to offset+limit of a kind, with their values.
func (c *Set) Diffs(dataset, kind string, offset, limit int) ([]RowDiff, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.all[dataset]
	if l == nil {
		return nil, nil
	}
	rows := l.list(kind)
	if offset >= len(rows) {
		return nil, nil
	}
	end := min(len(rows), offset+limit)
	part := rows[offset:end]
	side, t := c.cur, c.cur.tables[l.d]
	if kind == Removed {
		side, t = c.old, c.old.tables[l.d]
	}
	keys := side.keyValues(t, part)
	vals, err := side.values(t, part)
	if err != nil {
		return nil, err
	}
	var oldVals [][]string // a changed row's values before, read for the whole page at once
	if kind == Changed {
		if oldVals, err = c.old.values(c.old.tables[l.d], l.was[offset:end]); err != nil {
			return nil, err
		}
	}
	out := make([]RowDiff, len(part))
	name := columnIndex(l.d, NameColumn(l.d))
	for i := range part {
		out[i].Key = keys[i]
		if name >= 0 && name < len(vals[i]) {
			out[i].Name = vals[i][name]
		}
		switch kind {
		case Changed:
			out[i].Fields = fieldChanges(l.d, l.cols[offset+i], oldVals[i], vals[i])
		default:
			for j, col := range l.d.Columns {
				if j < len(vals[i]) && vals[i][j] != "" {
					fc := validation.FieldChange{Column: col.Name}
					if kind == Added {
						fc.New = vals[i][j]
					} else {
						fc.Old = vals[i][j]
					}
					out[i].Fields = append(out[i].Fields, fc)
				}
			}
		}
	}
	return out, nil
}

// Close closes the builds the comparison read.
func (c *Set) Close() {
	for _, s := range []*snapshot{c.cur, c.old} {
		if s != nil && s.close != nil {
			s.close()
		}
	}
}
