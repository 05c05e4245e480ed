package build

// The load and its cross-check: which files DuckDB reads, how it reads them, and the proof that it
// read what validation read.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// planned is an input file the load reads: opened by plan, read by DuckDB through its descriptor.
type planned struct {
	Dataset *schema.Dataset
	Name    string // base name
	Path    string // the input directory joined with Name
	Size    int64
	Header  []string
	info    fs.FileInfo // the open file's stat, for samePlan
	fh      *os.File
}

// plan opens the files a load reads and reads their headers, as validation will find them; each stays
// open for the load. It also says whether the input is worth loading at all: an entry
// validation.OpenInput refuses, a file name that is not UTF-8, or a header that cannot be read (too
// wide, say) or does not name exactly its dataset's columns is one validation refuses, so the build
// does not start: no DuckDB statement ever sees such a file.
func plan(dir string, maxSize int64) (files []*planned, loadable bool, err error) {
	inputs, err := validation.Inputs(dir)
	if err != nil {
		return nil, false, err
	}
	loadable = true
	for _, in := range inputs {
		f := &planned{Dataset: in.Dataset, Name: in.Name(), Path: filepath.Join(dir, in.Name())}
		if !utf8.ValidString(f.Name) {
			loadable = false
			continue
		}
		if err := readHeader(f, maxSize); err != nil {
			loadable = false
			continue
		}
		files = append(files, f)
		if !namesColumns(f.Dataset, f.Header) {
			loadable = false
		}
	}
	return files, loadable, nil
}

// namesColumns reports whether a header names each of the dataset's columns once and nothing else.
func namesColumns(d *schema.Dataset, header []string) bool {
	if len(header) != len(d.Columns) {
		return false
	}
	for _, c := range d.Columns {
		if !slices.Contains(header, c.Name) {
			return false
		}
	}
	return true
}

// readHeader opens a file, keeping it open in f.fh, and reads its size and header row.
func readHeader(f *planned, maxSize int64) error {
	fh, info, err := validation.OpenInput(f.Path, maxSize)
	if err != nil {
		return err
	}
	f.Size, f.info = info.Size(), info
	f.Header, err = validation.ReadHeader(io.NewSectionReader(fh, 0, f.Size))
	if err != nil {
		fh.Close()
		return err
	}
	f.fh = fh
	return nil
}

// samePlan reports whether the load read exactly the files (the same device and inode), headers and
// sizes validation checked.
func samePlan(loaded []*planned, validated []*validation.File) bool {
	if len(loaded) != len(validated) {
		return false
	}
	for i := range loaded {
		l, v := loaded[i], validated[i]
		if l.Path != v.Path || !v.SameFile(l.info) || l.Size != v.Size || strings.Join(l.Header, "\x00") != strings.Join(v.Header, "\x00") {
			return false
		}
	}
	return true
}

// loadCSV lets DuckDB's reader load a file into table. Profiles record the file each row came from in
// source_file: several profile files share one table.
//
// DuckDB reads the file plan opened, by its descriptor (/proc/self/fd/N), never by its name: a name
// can be swapped for a link or another file between any check and DuckDB's own open, a descriptor
// cannot. Validation opens the name separately, and samePlan then requires its file to be the same
// device and inode, so the build holds exactly the bytes that were validated (a copy would cost a
// second write of every file; checking identity before and after would still leave DuckDB's open by
// name racing a swap).
func loadCSV(ctx context.Context, db *sql.DB, f *planned) error {
	var columns []string
	for _, name := range f.Header {
		columns = append(columns, schema.QuoteString(name)+": 'VARCHAR'")
	}
	// A typed column's cell that cannot be typed was a warning: it loads as NULL, its value unknown.
	var casts []string
	for _, name := range f.Header {
		if c, _ := f.Dataset.Column(name); c.SQLType(f.Dataset.Private) != "VARCHAR" {
			casts = append(casts, fmt.Sprintf("TRY_CAST(%s AS %s) AS %s", schema.QuoteIdent(name), c.SQLType(true), schema.QuoteIdent(name)))
		}
	}
	selectList := "*"
	if len(casts) > 0 {
		selectList = "* REPLACE (" + strings.Join(casts, ", ") + ")"
	}
	if f.Dataset.Private {
		selectList = schema.QuoteString(f.Name) + " AS source_file, " + selectList
	}
	// Explicit options: no sniffing, RFC 4180 quoting, every column text, and an empty cell, quoted
	// ("") or not, is NULL, as validation treats both as empty. DuckDB's strict reader takes one line
	// ending per file, sniffed from its first line, and fails on a file whose lines end in CRLF and LF
	// both (as files edited on two systems do), which validation accepts: a file with carriage returns
	// is read in the lenient mode, and checkLoaded's counts of rows, cells and bytes still hold DuckDB's
	// reading to validation's.
	hasCR, err := containsCR(f)
	if err != nil {
		return fmt.Errorf("load %s: %w", f.Path, err)
	}
	load := fmt.Sprintf(`INSERT INTO %s BY NAME SELECT %s FROM read_csv(%s, header = true, auto_detect = false,
		delim = ',', quote = '"', escape = '"', strict_mode = %t, max_line_size = %d, columns = {%s},
		nullstr = '', allow_quoted_nulls = true)`,
		schema.QuoteIdent(f.Dataset.Table), selectList, schema.QuoteString(fdPath(f.fh)), !hasCR, maxRecordBytes(f), strings.Join(columns, ", "))
	if _, err := db.ExecContext(ctx, load); err != nil {
		return fmt.Errorf("load %s: %w", f.Path, err)
	}
	return nil
}

// containsCR reports whether the file plan opened holds a carriage return; the load runs beside
// validation, which learns the same only when it has read the whole file.
func containsCR(f *planned) (bool, error) {
	buf := make([]byte, 256<<10)
	r := io.NewSectionReader(f.fh, 0, f.Size)
	for {
		n, err := r.Read(buf)
		if bytes.IndexByte(buf[:n], '\r') >= 0 {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// checkLoaded cross-checks a loaded file against what validation read: the same row count, the same
// number of non-NULL cells in every column (validation's non-empty ones) and the same number of bytes
// in every text column, so DuckDB and validation can never disagree about the data.
func checkLoaded(ctx context.Context, db *sql.DB, f *validation.File) error {
	table, where := schema.QuoteIdent(f.Dataset.Table), ""
	if f.Dataset.Private {
		where = " WHERE source_file = " + schema.QuoteString(f.Name)
	}
	var text []string
	for _, name := range f.Header {
		if c, _ := f.Dataset.Column(name); c.SQLType(f.Dataset.Private) == "VARCHAR" {
			text = append(text, name)
		}
	}
	if f.HasCR {
		// encoding/csv reads a CRLF inside a quoted field as LF; DuckDB keeps it. Store what validation saw.
		var sets []string
		for _, name := range text {
			sets = append(sets, fmt.Sprintf("%s = replace(%s, chr(13) || chr(10), chr(10))", schema.QuoteIdent(name), schema.QuoteIdent(name)))
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s%s", table, strings.Join(sets, ", "), where)); err != nil {
			return fmt.Errorf("load %s: %w", f.Path, err)
		}
	}
	checks := []string{"count(*)"}
	for _, name := range f.Header {
		checks = append(checks, fmt.Sprintf("count(%s)", schema.QuoteIdent(name)))
	}
	for _, name := range text {
		checks = append(checks, fmt.Sprintf("coalesce(sum(strlen(%s)), 0)", schema.QuoteIdent(name)))
	}
	dest := make([]int64, len(checks))
	ptrs := make([]any, len(checks))
	for i := range dest {
		ptrs[i] = &dest[i]
	}
	if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(checks, ", "), table, where)).Scan(ptrs...); err != nil {
		return fmt.Errorf("check %s: %w", f.Path, err)
	}
	if dest[0] != int64(f.Rows) {
		return fmt.Errorf("load %s: DuckDB read %d rows, validation read %d", f.Path, dest[0], f.Rows)
	}
	filled, bytes := dest[1:1+len(f.Header)], dest[1+len(f.Header):]
	nulled := map[string]int64{} // typed cells that could not be typed load as NULL
	for _, u := range f.Unknown {
		if c, _ := f.Dataset.Column(u.Column); c.SQLType(f.Dataset.Private) != "VARCHAR" {
			nulled[u.Column]++
		}
	}
	for i, name := range f.Header {
		if filled[i] != f.Filled[name]-nulled[name] {
			return fmt.Errorf("load %s: DuckDB read %d values in column %s, validation read %d non-empty cells", f.Path, filled[i], name, f.Filled[name])
		}
	}
	for i, name := range text {
		if bytes[i] != f.Bytes[name] {
			return fmt.Errorf("load %s: DuckDB read %d bytes in column %s, validation read %d", f.Path, bytes[i], name, f.Bytes[name])
		}
	}
	return nil
}

// maxRecordBytes is a line size DuckDB's reader must accept for the file: encoding/csv has no limit,
// so a validated file may hold records longer than DuckDB's default of 2 MB.
func maxRecordBytes(f *planned) int64 {
	return max(f.Size+1, 2_000_000)
}

// fdPath names an open file so that another reader (DuckDB) opens that very file, whatever happens to
// the name in the directory afterwards.
func fdPath(f *os.File) string {
	if runtime.GOOS == "linux" {
		return fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	}
	return fmt.Sprintf("/dev/fd/%d", f.Fd())
}
