package ingest

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// A comparison finds changed rows by fingerprints; what a changed field was and is comes from the
// rows themselves, read again only for the rows named: fetched by rowid from a database, or read
// again from a file up to the last row wanted.

// FieldChange is one field of a changed row: its value before and after ("" for no value).
type FieldChange struct {
	Column string `json:"column"`
	Old    string `json:"old"`
	New    string `json:"new"`
}

// values returns the cells of rows of t as text, one per schema column ("" where absent or NULL).
func (s *snapshot) values(t *table, rows []int32) ([][]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if s.valuesOf != nil {
		return s.valuesOf(t, rows)
	}
	return t.fileValues(rows)
}

// fetchValues reads the cells of a few rows of a table read from a database.
func fetchValues(ctx context.Context, conn *database.Conn, t *table, rows []int32) ([][]string, error) {
	ids := make([]guard.SQL, len(rows))
	for i, r := range rows {
		ids[i] = guard.Int(int(t.rowid[r]))
	}
	var cols []guard.SQL
	var which []int
	for j, c := range t.d.Columns {
		if t.present[j] {
			cols = append(cols, asText(guard.MustIdent(c.Name)))
			which = append(which, j)
		}
	}
	res, err := conn.Query(ctx, guard.Format("SELECT rowid, %s FROM %s WHERE rowid IN (%s)", guard.Join(cols, ", "), guard.MustIdent(t.d.Table), guard.Join(ids, ", ")))
	if err != nil {
		return nil, err
	}
	defer res.Close()
	byRowid := map[int64][]string{}
	for res.Next() {
		var id int64
		vals := make([]string, len(cols))
		dest := []any{&id}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := res.Scan(dest...); err != nil {
			return nil, err
		}
		row := make([]string, len(t.d.Columns))
		for i, j := range which {
			row[j] = vals[i]
		}
		byRowid[id] = row
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = byRowid[t.rowid[r]]
	}
	return out, nil
}

// fileValues reads rows of a table read from files again: each file from its start up to its last
// row wanted, counting records as validation did (a record whose fields do not match the header, or
// that does not parse, was no row). A file that changed since is read as it is now.
func (t *table) fileValues(rows []int32) ([][]string, error) {
	out := make([][]string, len(rows))
	want := map[int32][]int{}
	for i, r := range rows {
		want[r] = append(want[r], i)
	}
	sorted := slices.Sorted(func(yield func(int32) bool) {
		for r := range want {
			if !yield(r) {
				return
			}
		}
	})
	for fi, span := range t.files {
		end := int32(math.MaxInt32)
		if fi+1 < len(t.files) {
			end = t.files[fi+1].start
		}
		last := int32(-1)
		for _, r := range sorted {
			if r >= span.start && r < end {
				last = r
			}
		}
		if last < 0 {
			continue
		}
		if err := t.readFileRows(span, last, func(row int32, cells []string) {
			for _, i := range want[row] {
				out[i] = cells
			}
		}, want); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *table) readFileRows(span fileSpan, last int32, got func(int32, []string), want map[int32][]int) error {
	fh, _, err := openInput(span.path, math.MaxInt64)
	if err != nil {
		return err
	}
	defer fh.Close()
	r, err := csvReader(fh, 64<<10)
	if err != nil {
		return err
	}
	header, err := r.Read()
	if err != nil {
		return err
	}
	field := make([]int, len(t.d.Columns))
	for j, c := range t.d.Columns {
		field[j] = slices.Index(header, c.Name)
	}
	row := span.start
	for row <= last {
		rec, err := r.Read()
		if err != nil {
			if recoverable(err) {
				continue
			}
			return fmt.Errorf("read %s again: %w", span.path, err)
		}
		if len(rec) != len(header) {
			continue
		}
		if _, ok := want[row]; ok {
			cells := make([]string, len(t.d.Columns))
			for j, f := range field {
				if f >= 0 {
					cells[j] = rec[f]
				}
			}
			got(row, cells)
		}
		row++
	}
	return nil
}

// fieldChanges lists the fields in which a changed row differs, with both values.
func fieldChanges(d *schema.Dataset, cols []string, old, cur []string) []FieldChange {
	var out []FieldChange
	for _, name := range cols {
		j := columnIndex(d, name)
		var o, n string
		if j < len(old) {
			o = old[j]
		}
		if j < len(cur) {
			n = cur[j]
		}
		out = append(out, FieldChange{Column: name, Old: o, New: n})
	}
	return out
}

// ChangeSet is a comparison of a build with a previous one that keeps every row it found added,
// removed or changed, for a reader to page through with the values. It covers the public datasets
// only: the profiles file is never opened.
type ChangeSet struct {
	Against  string
	Datasets []DatasetChange
	cur, old *snapshot
	all      map[string]*rowLists
}

// rowLists are a dataset's rows of each kind: added and changed in the current side, removed in the
// previous one, and for each changed row its previous row and the columns that differ.
type rowLists struct {
	d                       *schema.Dataset
	added, removed, changed []int32
	was                     []int32
	cols                    [][]string
}

// Kinds of change a ChangeSet lists.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeChanged = "changed"
)

// RowDiff is one row of a change: its key and the fields (for an added or removed row, every field
// with a value; for a changed one, those that differ).
type RowDiff struct {
	Key    []string      `json:"key"`
	Fields []FieldChange `json:"fields"`
}

// CompareBuilds compares the build at db with against, a previous build's database file or an input
// directory (as validate --against reads it), on the public datasets. Close it when done.
func CompareBuilds(ctx context.Context, db, against string) (_ *ChangeSet, err error) {
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
	cs := &ChangeSet{Against: against, cur: cur, old: old, all: map[string]*rowLists{}}
	c := compareKeeping(against, old, cur, cs.all)
	for _, ch := range c.Datasets {
		if d, _ := schema.ByName(ch.Dataset); d != nil && !d.Private {
			cs.Datasets = append(cs.Datasets, ch)
		}
	}
	return cs, nil
}

// Count is how many rows of a kind a dataset has.
func (c *ChangeSet) Count(dataset, kind string) int {
	l := c.all[dataset]
	if l == nil {
		return 0
	}
	return len(l.list(kind))
}

func (l *rowLists) list(kind string) []int32 {
	switch kind {
	case ChangeAdded:
		return l.added
	case ChangeRemoved:
		return l.removed
	case ChangeChanged:
		return l.changed
	}
	return nil
}

// Diffs returns rows offset to offset+limit of a kind, with their values.
func (c *ChangeSet) Diffs(dataset, kind string, offset, limit int) ([]RowDiff, error) {
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
	if kind == ChangeRemoved {
		side, t = c.old, c.old.tables[l.d]
	}
	keys := side.keyValues(t, part)
	vals, err := side.values(t, part)
	if err != nil {
		return nil, err
	}
	var oldVals [][]string // a changed row's values before, read for the whole page at once
	if kind == ChangeChanged {
		if oldVals, err = c.old.values(c.old.tables[l.d], l.was[offset:end]); err != nil {
			return nil, err
		}
	}
	out := make([]RowDiff, len(part))
	for i := range part {
		out[i].Key = keys[i]
		switch kind {
		case ChangeChanged:
			out[i].Fields = fieldChanges(l.d, l.cols[offset+i], oldVals[i], vals[i])
		default:
			for j, col := range l.d.Columns {
				if j < len(vals[i]) && vals[i][j] != "" {
					fc := FieldChange{Column: col.Name}
					if kind == ChangeAdded {
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
func (c *ChangeSet) Close() {
	for _, s := range []*snapshot{c.cur, c.old} {
		if s != nil && s.close != nil {
			s.close()
		}
	}
}
