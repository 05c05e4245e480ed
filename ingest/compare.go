package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/database"
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

// RowChange names one row by its key's values, and for a changed row the columns that differ.
type RowChange struct {
	Key     []string `json:"key"`
	Columns []string `json:"columns,omitempty"`
}

// sampleRows is how many rows of each kind a comparison names.
const sampleRows = 10

// table is one side's view of a dataset: a fingerprint of every row, found by its key. Cells are
// hashed, not kept, so a million-row file costs tens of megabytes.
type table struct {
	d       *schema.Dataset
	present []bool           // per schema column: seen in a header on this side
	keys    map[string]int32 // key → row number
	hashes  []uint64         // per row, one hash per schema column
	refs    []map[string]int // per d.References: the referring values and how often each occurs
	fileKey bool             // the key starts with the source file (datasets of several files)
	keyCols []int            // schema columns of d.Key
	refCols []int            // schema columns of d.References
	field   []int            // per schema column, its field in the current file (-1: none)
	posFile *File            // whose header field describes
	keyBuf  []string
}

// snapshot is one side of a comparison.
type snapshot struct {
	tables map[*schema.Dataset]*table
	broken map[*schema.Dataset]bool // a file of the dataset could not be read row by row
}

// seed is shared by both sides of every comparison in this process, so equal cells hash equal.
var seed = maphash.MakeSeed()

func newSnapshot() *snapshot {
	return &snapshot{tables: map[*schema.Dataset]*table{}, broken: map[*schema.Dataset]bool{}}
}

func (s *snapshot) table(d *schema.Dataset) *table {
	t := s.tables[d]
	if t == nil {
		t = &table{d: d, present: make([]bool, len(d.Columns)), keys: map[string]int32{},
			refs: make([]map[string]int, len(d.References)), fileKey: strings.ContainsAny(d.SourceFile, "*?[")}
		for i, ref := range d.References {
			t.refs[i] = map[string]int{}
			t.refCols = append(t.refCols, columnIndex(d, ref.Column))
		}
		for _, k := range d.Key {
			t.keyCols = append(t.keyCols, columnIndex(d, k))
		}
		s.tables[d] = t
	}
	return t
}

// columns tells the table which schema column each field of a file is; -1 for one the schema lacks.
func (t *table) columns(names []string) []int {
	pos := make([]int, len(names))
	for i, name := range names {
		pos[i] = -1
		for j, c := range t.d.Columns {
			if c.Name == name {
				pos[i] = j
				t.present[j] = true
			}
		}
	}
	return pos
}

// add records one row: source is its file's name, cell(j) the cell of schema column j ("" when absent
// or NULL, as an empty cell loads as NULL).
func (t *table) add(source string, cell func(j int) string) {
	t.keyBuf = t.keyBuf[:0]
	if t.fileKey {
		t.keyBuf = append(t.keyBuf, source)
	}
	for _, j := range t.keyCols {
		t.keyBuf = append(t.keyBuf, cell(j))
	}
	key := strings.Join(t.keyBuf, "\x1f")
	if _, dup := t.keys[key]; dup {
		// A key that repeats (the data does not promise it is unique) is matched by occurrence.
		for n := 2; ; n++ {
			if k := fmt.Sprintf("%s\x1e%d", key, n); !t.has(k) {
				key = k
				break
			}
		}
	}
	row := int32(len(t.hashes) / len(t.d.Columns))
	t.keys[key] = row
	for j := range t.d.Columns {
		var h uint64
		if t.present[j] {
			h = maphash.String(seed, cell(j))
		}
		t.hashes = append(t.hashes, h)
	}
	for i, j := range t.refCols {
		if v := cell(j); v != "" {
			t.refs[i][v]++
		}
	}
}

func columnIndex(d *schema.Dataset, name string) int {
	return slices.IndexFunc(d.Columns, func(c schema.Column) bool { return c.Name == name })
}

func (t *table) has(key string) bool { _, ok := t.keys[key]; return ok }

func (t *table) rows() int { return len(t.keys) }

// record is validation's hook: one complete record of f.
func (s *snapshot) record(f *File, record []string) {
	t := s.table(f.Dataset)
	if t.posFile != f {
		t.field, t.posFile = fieldOf(len(t.d.Columns), t.columns(f.Header)), f
	}
	byColumn := t.field
	t.add(f.Name, func(j int) string {
		if j < 0 || byColumn[j] < 0 {
			return ""
		}
		return record[byColumn[j]]
	})
}

// fieldOf inverts pos (field → schema column) into schema column → field, -1 where none.
func fieldOf(width int, pos []int) []int {
	field := make([]int, width)
	for j := range field {
		field[j] = -1
	}
	for i, j := range pos {
		if j >= 0 {
			field[j] = i
		}
	}
	return field
}

// readAgainst reads the other side of a comparison: a built database file, or an input directory
// validated as input/ is.
func readAgainst(ctx context.Context, path string) (*snapshot, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, ctool.Errorf(ctool.KindIO, "--against %s: %v", path, err).WithHint("give a built ctool.duckdb or an input directory")
	}
	if info.IsDir() {
		snap := newSnapshot()
		res, err := Validate(path, Options{MaxErrors: 1, snap: snap})
		if err != nil {
			return nil, err
		}
		if !res.Report.Valid() {
			p := res.Report.Problems[0]
			return nil, ctool.Errorf(ctool.KindInvalidData, "--against %s is not valid (%s, the first: %s)", path, Problems(res.Report.Count), p).
				WithHint("compare against the last good input or build")
		}
		return snap, nil
	}
	return readBuild(ctx, path)
}

// readBuild reads every dataset's rows from a built database, opened read-only as every reader opens it.
func readBuild(ctx context.Context, path string) (*snapshot, error) {
	b, err := database.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	snap := newSnapshot()
	for _, d := range schema.All() {
		db := b.DB()
		if d.Private {
			f, err := b.Profiles(ctx)
			if err != nil {
				return nil, err
			}
			db = f.DB()
		}
		if err := readTable(ctx, db, snap.table(d)); err != nil {
			return nil, fmt.Errorf("--against %s: read %s: %w", path, d.Table, err)
		}
	}
	return snap, nil
}

func readTable(ctx context.Context, db *sql.DB, t *table) error {
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+sqlIdent(t.d.Table))
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	pos := t.columns(names)
	source := slices.Index(names, "source_file")
	cells := make([]sql.RawBytes, len(names))
	dest := make([]any, len(names))
	for i := range cells {
		dest[i] = &cells[i]
	}
	byColumn := fieldOf(len(t.d.Columns), pos)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		name := ""
		if source >= 0 {
			name = string(cells[source])
		}
		t.add(name, func(j int) string {
			if j < 0 || byColumn[j] < 0 {
				return ""
			}
			return string(cells[byColumn[j]])
		})
	}
	return rows.Err()
}

// compare lists what changed from old to cur, dataset by dataset.
func compare(against string, old, cur *snapshot) *Comparison {
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
		var added, removed, changed samples
		for key, nr := range n.keys {
			or, ok := o.keys[key]
			if !ok {
				ch.Added++
				added.offer(key, nil)
				continue
			}
			nh, oh := n.hashes[int(nr)*width:][:width], o.hashes[int(or)*width:][:width]
			var cols []string
			for j := range width {
				if n.present[j] && o.present[j] && nh[j] != oh[j] {
					perColumn[j]++
					cols = append(cols, d.Columns[j].Name)
				}
			}
			if cols != nil {
				ch.Changed++
				changed.offer(key, cols)
			}
		}
		for key := range o.keys {
			if _, ok := n.keys[key]; !ok {
				ch.Removed++
				removed.offer(key, nil)
			}
		}
		for j, k := range perColumn {
			if k > 0 {
				ch.ChangedColumns = append(ch.ChangedColumns, ColumnCount{d.Columns[j].Name, k})
			}
		}
		if !d.Private {
			ch.AddedRows, ch.RemovedRows, ch.ChangedRows = added.rows(), removed.rows(), changed.rows()
		}
		c.Datasets = append(c.Datasets, ch)
	}
	return c
}

// samples keeps the sampleRows smallest keys offered, so the rows named do not depend on map order.
type samples struct {
	keys []string
	cols [][]string
}

func (s *samples) offer(key string, cols []string) {
	if len(s.keys) == sampleRows && key >= s.keys[sampleRows-1] {
		return
	}
	i, _ := slices.BinarySearch(s.keys, key)
	s.keys = slices.Insert(s.keys, i, key)
	s.cols = slices.Insert(s.cols, i, cols)
	if len(s.keys) > sampleRows {
		s.keys, s.cols = s.keys[:sampleRows], s.cols[:sampleRows]
	}
}

func (s *samples) rows() []RowChange {
	var out []RowChange
	for i, k := range s.keys {
		k, n, dup := strings.Cut(k, "\x1e")
		key := strings.Split(k, "\x1f")
		if dup {
			key[len(key)-1] += " (#" + n + ")"
		}
		out = append(out, RowChange{Key: key, Columns: s.cols[i]})
	}
	return out
}

// writeComparisonText is the comparison in the text report: a line per dataset, then the rows named.
func writeComparisonText(w io.Writer, c *Comparison) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "compared with %s:\n", c.Against)
	for _, ch := range c.Datasets {
		fmt.Fprintf(w, "  %s\n", ch.summary())
		for _, r := range ch.AddedRows {
			fmt.Fprintf(w, "    added %s\n", strings.Join(r.Key, " / "))
		}
		for _, r := range ch.RemovedRows {
			fmt.Fprintf(w, "    removed %s\n", strings.Join(r.Key, " / "))
		}
		for _, r := range ch.ChangedRows {
			fmt.Fprintf(w, "    changed %s: %s\n", strings.Join(r.Key, " / "), strings.Join(r.Columns, ", "))
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
