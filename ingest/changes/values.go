package changes

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
)

// A comparison finds changed rows by fingerprints; what a changed field was and is comes from the
// rows themselves, read again only for the rows named: fetched by rowid from a database, or read
// again from a file up to the last row wanted.

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

// fetchValues reads the cells of a few rows of a table read from a database, each row as wide as
// the dataset's columns (” for a column the table lacks).
func fetchValues(ctx context.Context, conn *database.Conn, t *table, rows []int32) ([][]string, error) {
	var names []string
	var which []int
	for j, c := range t.d.Columns {
		if t.present[j] {
			names = append(names, c.Name)
			which = append(which, j)
		}
	}
	cells, err := fetchCells(ctx, conn, t, rows, names)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, vals := range cells {
		if vals == nil {
			continue
		}
		out[i] = make([]string, len(t.d.Columns))
		for k, j := range which {
			out[i][j] = vals[k]
		}
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
	fh, _, err := validation.OpenInput(span.path, math.MaxInt64)
	if err != nil {
		return err
	}
	defer fh.Close()
	r, err := validation.CSVReader(fh, 64<<10)
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
			if validation.Recoverable(err) {
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
func fieldChanges(d *schema.Dataset, cols []string, old, cur []string) []validation.FieldChange {
	var out []validation.FieldChange
	for _, name := range cols {
		j := columnIndex(d, name)
		var o, n string
		if j < len(old) {
			o = old[j]
		}
		if j < len(cur) {
			n = cur[j]
		}
		out = append(out, validation.FieldChange{Column: name, Old: o, New: n})
	}
	return out
}
