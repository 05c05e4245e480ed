package changes

import (
	"crypto/md5"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

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
	posFile *validation.File // whose header field describes
	keyBuf  []byte
	files   []fileSpan // read from files: each file's path and its first row, to read values again
}

// fileSpan is one file of a table read from files: its rows start at row start.
type fileSpan struct {
	path  string
	start int32
}

// snapshot is one side of a comparison.
type snapshot struct {
	tables map[*schema.Dataset]*table
	broken map[*schema.Dataset]bool // a file of the dataset could not be read row by row
	// keysOf fetches the key values of rows of a table read from a database; nil for files.
	keysOf func(t *table, rows []int32) ([][]string, error)
	// valuesOf fetches the values of rows of a table read from a database, as text per schema column;
	// nil for files, whose rows are read again (fileValues).
	valuesOf func(t *table, rows []int32) ([][]string, error)
	// derivedOf fetches the derived values of rows of a table read from a build (fetchDerived); nil for
	// files, which derive nothing.
	derivedOf func(t *table, rows []int32) ([]map[string]string, error)
	close     func()
}

// hashText is a cell's or a key's hash: the first 8 bytes of its MD5, little-endian, as DuckDB's
// md5_number(s) & 0xFFFFFFFFFFFFFFFF.
func hashText(s []byte) uint64 {
	sum := md5.Sum(s)
	return binary.LittleEndian.Uint64(sum[:8])
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
func (s *snapshot) record(f *validation.File, record []string) {
	t := s.table(f.Dataset)
	if t.posFile != f {
		t.field, t.posFile = fieldOf(len(t.d.Columns), t.columns(f.Header)), f
		t.files = append(t.files, fileSpan{f.Path, int32(len(t.keyHash))})
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
