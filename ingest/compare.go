package ingest

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/escape"
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

// sampleRows is how many rows of each kind a comparison names: the first ones, in file order.
const sampleRows = 10

// table is one side's view of a dataset: a fingerprint of every row, found by its key. Cells are
// hashed, not kept, and nothing per row holds a pointer, so a million-row file costs tens of
// megabytes and no garbage collector work. A key or a cell is known by the first 64 bits of its MD5,
// which DuckDB computes too (md5_number), so a built database's side is hashed inside DuckDB on its
// own threads and only numbers cross into Go. Two keys of a million colliding is a chance in ten
// million million.
type table struct {
	d       *schema.Dataset
	present []bool           // per schema column: seen in a header on this side
	keyHash []uint64         // per row, its key hash
	sorted  []keyRow         // the rows sorted by key hash, built once by index (keyindex.go)
	hashes  []uint64         // per row, one hash per schema column
	keyText []byte           // read from files: every row's key text, one after another
	keyEnd  []uint32         // read from files: per row, where its key text ends in keyText
	rowid   []int64          // read from a database: per row, its rowid, to fetch the key of a row named
	occ     []int32          // per row once a key repeats (index): which occurrence of its key it is (0: the first)
	refs    []map[string]int // per d.References: the referring values and how often each occurs
	fileKey bool             // the key starts with the source file (datasets of several files)
	keyCols []int            // schema columns of d.Key
	refCols []int            // schema columns of d.References
	field   []int            // per schema column, its field in the current file (-1: none)
	posFile *File            // whose header field describes
	keyBuf  []byte
}

// snapshot is one side of a comparison.
type snapshot struct {
	tables map[*schema.Dataset]*table
	broken map[*schema.Dataset]bool // a file of the dataset could not be read row by row
	// keysOf fetches the key values of rows of a table read from a database; nil for files.
	keysOf func(t *table, rows []int32) ([][]string, error)
	close  func()
}

// hashText is a cell's or a key's hash: the first 8 bytes of its MD5, little-endian, as DuckDB's
// md5_number(s) & 0xFFFFFFFFFFFFFFFF.
func hashText(s []byte) uint64 {
	sum := md5.Sum(s)
	return binary.LittleEndian.Uint64(sum[:8])
}

// nth numbers the nth occurrence of a repeated key, the same way on both sides.
func nth(h uint64, n int) uint64 {
	h ^= uint64(n) * 0x9e3779b97f4a7c15
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

func newSnapshot() *snapshot {
	return &snapshot{tables: map[*schema.Dataset]*table{}, broken: map[*schema.Dataset]bool{}}
}

func (s *snapshot) table(d *schema.Dataset) *table {
	t := s.tables[d]
	if t == nil {
		t = &table{d: d, present: make([]bool, len(d.Columns)),
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

// addRow files one row under its key hash. A key may repeat (the data does not promise it is unique):
// such rows are matched by occurrence (index).
func (t *table) addRow(h uint64) {
	t.keyHash = append(t.keyHash, h)
}

// add records one row read from a file: source is its file's name, cell(j) the cell of schema column
// j ("" when absent, as an empty cell loads as NULL).
func (t *table) add(source string, cell func(j int) string) {
	t.keyBuf = t.keyBuf[:0]
	if t.fileKey {
		t.keyBuf = append(t.keyBuf, source...)
	}
	for i, j := range t.keyCols {
		if i > 0 || t.fileKey {
			t.keyBuf = append(t.keyBuf, keySeparator)
		}
		t.keyBuf = append(t.keyBuf, cell(j)...)
	}
	t.addRow(hashText(t.keyBuf))
	t.keyText = append(t.keyText, t.keyBuf...)
	t.keyEnd = append(t.keyEnd, uint32(len(t.keyText)))
	for j := range t.d.Columns {
		var h uint64
		if t.present[j] && !slices.Contains(t.keyCols, j) {
			h = hashString(cell(j))
		}
		t.hashes = append(t.hashes, h)
	}
	for i, j := range t.refCols {
		if v := cell(j); v != "" {
			t.refs[i][v]++
		}
	}
}

// keySeparator joins the values of a key (and the source file before them) into its text.
const keySeparator = '\x1f'

func columnIndex(d *schema.Dataset, name string) int {
	return slices.IndexFunc(d.Columns, func(c schema.Column) bool { return c.Name == name })
}

func (t *table) rows() int { return len(t.keyHash) }

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
// validated as input/ is. Call the snapshot's close when done with it.
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

// readBuild reads every dataset's rows from a built database, opened read-only as every reader opens
// it, and keeps it open to fetch the keys of the rows a comparison names.
func readBuild(ctx context.Context, path string) (_ *snapshot, err error) {
	b, err := database.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	snap := newSnapshot()
	dbs := map[*table]*sql.DB{}
	for _, d := range schema.All() {
		db := b.DB()
		if d.Private {
			f, err := b.Profiles(ctx)
			if err != nil {
				return nil, err
			}
			db = f.DB()
		}
		t := snap.table(d)
		dbs[t] = db
		if err := readTable(ctx, db, t); err != nil {
			return nil, fmt.Errorf("--against %s: read %s: %w", path, d.Table, err)
		}
	}
	snap.keysOf = func(t *table, rows []int32) ([][]string, error) {
		return fetchKeys(ctx, dbs[t], t, rows)
	}
	snap.close = func() { b.Close() }
	return snap, nil
}

// readTable reads a table's rows as hashes that DuckDB computes: rowid, the key's hash, then a hash per
// column, in the table's order (a SELECT without ORDER BY keeps the order rows were inserted in).
func readTable(ctx context.Context, db *sql.DB, t *table) error {
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+sqlIdent(t.d.Table)+" LIMIT 0")
	if err != nil {
		return err
	}
	names, err := rows.Columns()
	rows.Close()
	if err != nil {
		return err
	}
	t.columns(names)
	const low64 = " & 18446744073709551615::UHUGEINT AS UBIGINT)"
	text := func(col string) string { return "coalesce(CAST(" + sqlIdent(col) + " AS VARCHAR), '')" }
	var key []string
	if t.fileKey {
		key = append(key, text("source_file"))
	}
	for _, k := range t.d.Key {
		key = append(key, text(k))
	}
	list := []string{"rowid", "CAST(md5_number(concat_ws(chr(31), " + strings.Join(key, ", ") + "))" + low64}
	var hashed []int // the schema columns DuckDB hashes; the others stay 0
	for j, c := range t.d.Columns {
		// A key column is equal in rows whose keys match: it is not hashed (0 on both sides).
		if t.present[j] && !slices.Contains(t.keyCols, j) {
			list = append(list, "CAST(md5_number("+text(c.Name)+")"+low64)
			hashed = append(hashed, j)
		}
	}
	var count int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+sqlIdent(t.d.Table)).Scan(&count); err != nil {
		return err
	}
	t.keyHash = make([]uint64, 0, count)
	t.rowid = make([]int64, 0, count)
	t.hashes = make([]uint64, 0, count*len(t.d.Columns))
	rows, err = db.QueryContext(ctx, "SELECT "+strings.Join(list, ", ")+" FROM "+sqlIdent(t.d.Table))
	if err != nil {
		return err
	}
	defer rows.Close()
	width := len(t.d.Columns)
	// Scanned as the driver's values and asserted here: scanning into *uint64 goes through reflection,
	// a tenth of the build side's CPU.
	got := make([]any, 2+len(hashed))
	dest := make([]any, len(got))
	for i := range got {
		dest[i] = &got[i]
	}
	cells := make([]uint64, width)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		rowid, ok := got[0].(int64)
		keyHash, ok2 := got[1].(uint64)
		if !ok || !ok2 {
			return fmt.Errorf("unexpected row %T %T", got[0], got[1])
		}
		t.addRow(keyHash)
		t.rowid = append(t.rowid, rowid)
		for i, j := range hashed {
			h, ok := got[2+i].(uint64)
			if !ok {
				return fmt.Errorf("unexpected hash %T", got[2+i])
			}
			cells[j] = h
		}
		t.hashes = append(t.hashes, cells...)
	}
	return rows.Err()
}

// fetchKeys reads the key values of a few rows of a table read from a database.
func fetchKeys(ctx context.Context, db *sql.DB, t *table, rows []int32) ([][]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, strconv.FormatInt(t.rowid[r], 10))
	}
	var cols []string
	for _, k := range t.d.Key {
		cols = append(cols, "coalesce(CAST("+sqlIdent(k)+" AS VARCHAR), '')")
	}
	res, err := db.QueryContext(ctx, "SELECT rowid, "+strings.Join(cols, ", ")+" FROM "+sqlIdent(t.d.Table)+
		" WHERE rowid IN ("+strings.Join(ids, ", ")+")")
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
		byRowid[id] = vals
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

// keyValues are the key values of rows, numbered when a key repeats.
func (s *snapshot) keyValues(t *table, rows []int32) [][]string {
	t.index() // numbers the occurrences of repeated keys
	var out [][]string
	if s.keysOf != nil {
		fetched, err := s.keysOf(t, rows)
		if err != nil {
			fetched = make([][]string, len(rows))
		}
		out = fetched
	} else {
		for _, r := range rows {
			start := uint32(0)
			if r > 0 {
				start = t.keyEnd[r-1]
			}
			vals := strings.Split(string(t.keyText[start:t.keyEnd[r]]), string(keySeparator))
			if t.fileKey {
				vals = vals[1:]
			}
			out = append(out, vals)
		}
	}
	for i, r := range rows {
		if t.occ == nil {
			break
		}
		if n := t.occ[r]; n > 1 && len(out[i]) > 0 {
			out[i] = slices.Clone(out[i])
			out[i][len(out[i])-1] += " (#" + strconv.Itoa(int(n)) + ")"
		}
	}
	return out
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
		var added, removed, changed []int32
		var changedCols [][]string
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
				continue
			}
			nh, oh := n.hashes[nr*width:][:width], o.hashes[int(or)*width:][:width]
			var cols []string
			for j := range width {
				if n.present[j] && o.present[j] && nh[j] != oh[j] {
					perColumn[j]++
					if len(changed) < sampleRows {
						cols = append(cols, d.Columns[j].Name)
					}
				}
			}
			if differs(n.present, o.present, nh, oh) {
				ch.Changed++
				if len(changed) < sampleRows {
					changed = append(changed, int32(nr))
					changedCols = append(changedCols, cols)
				}
			}
		}
		for or := range o.keyHash {
			if !matched[or] {
				ch.Removed++
				if len(removed) < sampleRows {
					removed = append(removed, int32(or))
				}
			}
		}
		for j, k := range perColumn {
			if k > 0 {
				ch.ChangedColumns = append(ch.ChangedColumns, ColumnCount{d.Columns[j].Name, k})
			}
		}
		if !d.Private {
			ch.AddedRows = rowChanges(cur.keyValues(n, added), nil)
			ch.RemovedRows = rowChanges(old.keyValues(o, removed), nil)
			ch.ChangedRows = rowChanges(cur.keyValues(n, changed), changedCols)
		}
		c.Datasets = append(c.Datasets, ch)
	}
	return c
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
