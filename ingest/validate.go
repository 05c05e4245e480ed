// Package ingest owns reading, validating and loading the CSV files in the input directory: `ctool
// validate` reports every problem with its file, line, column and rule, and `ctool ingest` builds the
// database files from data that passed, all or nothing.
package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/venuematch"
	"github.com/xeipuuv/gojsonschema"
)

// File is one input file as validation saw it; loading uses the same facts to cross-check DuckDB.
type File struct {
	Dataset *schema.Dataset
	Name    string // base name, e.g. events.csv
	Path    string // as problems name it: the input directory joined with Name
	SHA256  string
	Size    int64
	Rows    int
	Header  []string         // column names in file order
	Bytes   map[string]int64 // per column, the total length in bytes of its cells
	Filled  map[string]int64 // per column, how many cells are not empty (an empty cell loads as NULL)
	HasCR   bool             // carriage returns anywhere in the file (CRLF line endings)
	// Unknown are the cells that could not be typed, in file order: the build keeps them as written and
	// their typed values unknown.
	Unknown []UnknownCell
	info    fs.FileInfo // the open file's stat: the load must read this very file
	fh      *os.File    // the load's open file (plan), given to DuckDB by descriptor
}

// UnknownCell is a cell that could not be typed: a warning, unless --strict.
type UnknownCell struct {
	Row    int // the record's index in its file, from 0
	Line   int // where the cell starts
	Column string
	Rule   string
}

// Result is what validation found.
type Result struct {
	Files  []*File
	Report *Report
	Place  schema.Place // what the input's place file names: the zero Place without one, or with problems
}

// Validate checks every dataset's files in dir and reports every problem, keeping at most
// opts.MaxErrors of them, and tells opts.Progress how far it has read. The error is for failures that
// are not the data's fault.
func Validate(dir string, opts Options) (res *Result, err error) {
	inputs, err := listInputs(dir)
	if err != nil {
		return nil, err
	}
	v, err := newValidator(opts.MaxErrors)
	if err != nil {
		return nil, err
	}
	v.report.failed, v.ctx, v.compute = opts.failed, opts.ctx, opts.compute
	v.strict = opts.Strict || opts.Contracts != nil && opts.Contracts.Strict
	v.maxFileSize = opts.MaxFileSize
	if v.maxFileSize <= 0 {
		v.maxFileSize = DefaultMaxFileSize
	}
	if opts.Contracts != nil || opts.snap != nil {
		v.watch = &watch{snap: opts.snap, latestEnd: map[*schema.Dataset]string{}}
		defer v.watch.flush()
		if opts.Contracts != nil && opts.Contracts.Against != "" {
			v.watch.snap = newSnapshot()
			v.watch.readAgainst(opts.Contracts.Against)
			defer func() {
				if err != nil {
					v.watch.abandon()
				}
			}()
		}
	}
	files := map[*schema.Dataset][]string{}
	v.progress.report = opts.Progress
	for _, in := range inputs {
		files[in.dataset] = append(files[in.dataset], in.name())
		if info, err := in.entry.Info(); err == nil {
			v.progress.now.TotalBytes += info.Size()
		}
	}
	if opts.Progress != nil {
		v.progress.send()
		defer func() { v.progress.finish(err == nil) }()
	}
	res = &Result{Report: v.report}
	var storeIDs map[string]bool
	for _, d := range schema.All() {
		names := files[d]
		if len(names) == 0 {
			want := d.SourceFile
			if strings.ContainsAny(want, "*?[") {
				want = strings.Replace(want, "*", "", 1)
			}
			v.report.add(Problem{File: filepath.Join(dir, want), Rule: RuleMissingFile,
				Message: fmt.Sprintf("%s data file %s is missing from %s", d.Name, d.SourceFile, dir)})
			continue
		}
		for _, name := range names {
			if opts.ctx != nil && opts.ctx.Err() != nil {
				return nil, opts.ctx.Err()
			}
			f := &File{Dataset: d, Name: name, Path: filepath.Join(dir, name)}
			if !utf8.ValidString(name) {
				// The build records each file's name (profiles' source_file, ctool_meta.sources), and
				// DuckDB holds only UTF-8 text.
				v.report.add(Problem{File: f.Path, Rule: RuleEncoding, Message: "the file name is not valid UTF-8; rename the file"})
				res.Files = append(res.Files, f)
				continue
			}
			keys, err := v.file(f, storeIDs)
			if err != nil {
				return nil, err
			}
			if d == schema.Stores {
				storeIDs = keys
				v.venues = &venueCheck{venues: venuematch.New(v.stores), seen: map[string]*Problem{}}
			}
			res.Files = append(res.Files, f)
		}
	}
	place, problems, err := readPlace(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		v.report.add(p)
	}
	res.Place = place
	for _, f := range res.Files {
		v.report.Files = append(v.report.Files, FileSummary{Path: f.Path, Rows: f.Rows})
	}
	if v.watch != nil {
		v.watch.flush()
	}
	if opts.Contracts != nil {
		if err := v.checkContracts(res, opts.Contracts, v.watch); err != nil {
			return nil, err
		}
	}
	return res, nil
}

type validator struct {
	report      *Report
	maxFileSize int64
	progress    progress
	schemas     map[string]*gojsonschema.Schema
	// seen caches the verdict on a JSON text per schema: real data repeats the same cells often.
	seen map[string][]jsonProblem
	// watch, when set, sees every complete record for the contracts (contracts.go).
	watch *watch
	// allUTF8 reports whether every byte of the current file read so far is UTF-8, so that cells need
	// no check of their own.
	allUTF8 func() bool
	ctx     context.Context                // Options.ctx
	compute func(f *File, record []string) // Options.compute
	strict  bool                           // warnings are errors (Contracts.Strict)
	// public is set while a public dataset's file is read: its cells reach the agent, so they are
	// read for text addressed to it (cells.go); plain holds short cells already read that do not
	// address it, since a store's name, its id and a tag repeat on every product.
	public bool
	plain  map[string]struct{}
	// stores are the stores file's ids and names as read; venues matches events' venues against them
	// once that file is read (venues.go).
	stores []venuematch.Store
	venues *venueCheck
}

// newValidator compiles every dataset's JSON Schemas once.
func newValidator(maxErrors int) (*validator, error) {
	v := &validator{report: &Report{Max: maxErrors}, schemas: map[string]*gojsonschema.Schema{}, seen: map[string][]jsonProblem{},
		plain: map[string]struct{}{}}
	for _, d := range schema.All() {
		for _, c := range d.Columns {
			if c.Kind != schema.JSON || v.schemas[c.SchemaFile] != nil {
				continue
			}
			text, err := schema.JSONSchema(c.SchemaFile)
			if err != nil {
				return nil, err
			}
			s, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(text))
			if err != nil {
				return nil, fmt.Errorf("compile JSON Schema %s: %w", c.SchemaFile, err)
			}
			v.schemas[c.SchemaFile] = s
		}
	}
	return v, nil
}

// hashingReader hashes what passes through and notes carriage returns (readahead.go).
type hashingReader struct {
	r     io.Reader
	h     hash.Hash
	n     int64 // bytes handed to the caller so far
	hasCR bool  // set once the reader has returned io.EOF
	ahead readAhead
}

// file validates one file and returns the values of its dataset's primary key.
func (v *validator) file(f *File, storeIDs map[string]bool) (map[string]bool, error) {
	fh, info, err := openInput(f.Path, v.maxFileSize)
	var ee *EntryError
	if errors.As(err, &ee) {
		v.report.add(entryProblem(ee))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer fh.Close()
	f.info = info
	v.public = !f.Dataset.Private
	// The limit holds even for a file that grows while it is read: one byte past it is a problem.
	limit := v.maxFileSize
	hr := &hashingReader{r: io.LimitReader(fh, limit+1), h: sha256.New()}
	v.allUTF8 = hr.allUTF8
	defer func() {
		// Finish reading so the hash covers the whole file even when validation stopped early.
		io.Copy(io.Discard, hr)
		f.SHA256 = hex.EncodeToString(hr.h.Sum(nil))
		f.Size = hr.n
		f.HasCR = hr.hasCR
		v.progress.fileRead(hr.n)
		if hr.n > limit {
			v.report.add(Problem{File: f.Path, Rule: RuleFile, Message: fmt.Sprintf("grew past the limit of %d bytes while it was read", limit)})
		}
	}()
	r, err := csvReader(hr, 1<<20)
	var he *HeaderError
	if errors.As(err, &he) {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleHeader, Message: he.Message})
		return nil, nil
	}
	if err != nil {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleEncoding, Message: fmt.Sprintf("%s %v", escape.Visible(f.Name), err)})
		return nil, nil
	}
	r.FieldsPerRecord = -1
	r.ReuseRecord = true

	d := f.Dataset
	header, err := r.Read()
	if err == io.EOF {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleHeader,
			Message: "file is empty; expected the header " + strings.Join(d.ColumnNames(), ",")})
		return nil, nil
	}
	if err != nil {
		v.report.add(csvProblem(f.Path, err))
		return nil, nil
	}
	f.Header = append([]string(nil), header...)
	columns, ok := v.header(f)
	if !ok {
		return nil, nil
	}
	f.Bytes = make(map[string]int64, len(columns))
	f.Filled = make(map[string]int64, len(columns))
	// Counted per field, not per cell in the maps (two map writes a cell was a tenth of the CPU); the
	// maps get the same entries at the end: Bytes once a record was counted, Filled once a cell was.
	colBytes, colFilled, counted := make([]int64, len(columns)), make([]int64, len(columns)), false
	defer func() {
		for i, c := range columns {
			if counted {
				f.Bytes[c.Name] += colBytes[i]
			}
			if colFilled[i] > 0 {
				f.Filled[c.Name] += colFilled[i]
			}
		}
	}()

	keys := map[string]bool{}
	keyLines := map[string]int{}
	// Records are parsed on another goroutine, ahead of these checks (parsepipe.go).
	parser := startParse(r, hr, len(columns))
	defer parser.drain()
	for {
		it, ok := parser.next()
		if !ok {
			break
		}
		record, line, err := it.record, it.line, it.err
		if err != nil {
			if recoverable(err) {
				v.report.add(csvProblem(f.Path, err))
				continue
			}
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		f.Rows++
		v.progress.record(it.read)
		if f.Rows%4096 == 0 && v.ctx != nil && v.ctx.Err() != nil {
			return nil, v.ctx.Err()
		}
		if it.fields != len(columns) {
			v.report.add(Problem{File: f.Path, Line: line, Rule: RuleRagged,
				Message: fmt.Sprintf("expected %d fields as in the header, found %d", len(columns), it.fields)})
			continue
		}
		if v.watch != nil {
			v.watch.observe(f, record)
		}
		if v.compute != nil {
			v.compute(f, record)
		}
		switch d {
		case schema.Stores:
			v.stores = append(v.stores, venuematch.Store{ID: record[indexOf(f.Header, "store_id")], Name: record[indexOf(f.Header, "store_name")]})
		case schema.Events:
			loc := indexOf(f.Header, "location")
			v.venue(f, it.cellLine(loc), record[loc])
		}
		counted = true
		for i, cell := range record {
			colBytes[i] += int64(len(cell))
			if cell != "" {
				colFilled[i]++
			}
			if rule := v.cell(f.Path, it.cellLine(i), columns[i], cell); rule != "" {
				f.Unknown = append(f.Unknown, UnknownCell{Row: f.Rows - 1, Line: it.cellLine(i), Column: columns[i].Name, Rule: rule})
			}
		}
		if d.PrimaryKey != "" {
			key := indexOf(f.Header, d.PrimaryKey)
			id := record[key]
			if first, dup := keyLines[id]; dup && id != "" {
				v.report.add(Problem{File: f.Path, Line: it.cellLine(key), Column: d.PrimaryKey, Rule: RuleUnique,
					Message: fmt.Sprintf("%s %s is already used on line %d", d.PrimaryKey, escape.Quote(id), first)})
			} else {
				keyLines[id] = it.cellLine(key)
				keys[id] = true
			}
		}
		if storeIDs != nil {
			for _, ref := range d.References {
				at := indexOf(f.Header, ref.Column)
				id := record[at]
				if id != "" && !storeIDs[id] {
					v.report.add(Problem{File: f.Path, Line: it.cellLine(at), Column: ref.Column, Rule: RuleReference,
						Message: fmt.Sprintf("%s is not a %s.%s", escape.Quote(id), ref.Dataset, ref.Key)})
				}
			}
		}
	}
	return keys, nil
}

// csvReader reads CSV records from r after a UTF-8 byte order mark, if there is one. A file that is
// not UTF-8 as a whole (see sniffEncoding) is an error, reported once for the file, and so is a header
// wider than MaxColumns fields or longer than maxHeaderBytes (a *HeaderError), found before anything
// splits it.
func csvReader(r io.Reader, bufferSize int) (*csv.Reader, error) {
	br := bufio.NewReaderSize(r, max(bufferSize, maxHeaderBytes))
	head, _ := br.Peek(min(bufferSize, sniffBytes))
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		br.Discard(3) // a UTF-8 byte order mark is fine
	} else if err := sniffEncoding(head); err != nil {
		return nil, err
	}
	if err := checkHeaderSize(br); err != nil {
		return nil, err
	}
	return csv.NewReader(br), nil
}

// MaxColumns is the most fields a header may have: far more than any dataset's columns, few enough
// that reporting each unknown one, and DuckDB's reader, stay cheap.
const MaxColumns = 4096

// maxHeaderBytes is the longest header, in bytes: MaxColumns names of 64 bytes. Past it the header is
// refused unread, so that a header line of hundreds of megabytes is never split into fields.
const maxHeaderBytes = 256 << 10

// HeaderError is a header too wide or too long to read.
type HeaderError struct{ Message string }

func (e *HeaderError) Error() string { return e.Message }

// checkHeaderSize looks at the header in br's buffer, without consuming it: the header must end within
// maxHeaderBytes and have at most MaxColumns fields.
func checkHeaderSize(br *bufio.Reader) error {
	head, err := br.Peek(maxHeaderBytes)
	whole := err != nil // the file ends within the window
	r := csv.NewReader(bytes.NewReader(head))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	header, _ := r.Read() // a syntax error is reported when the header is read for real
	ended := whole || r.InputOffset() < int64(len(head))
	switch {
	case len(header) > MaxColumns && ended:
		return &HeaderError{fmt.Sprintf("the header has %d fields, more than the %d a file may have", len(header), MaxColumns)}
	case len(header) > MaxColumns:
		return &HeaderError{fmt.Sprintf("the header has %d fields in its first %d bytes alone, more than the %d a file may have", len(header), maxHeaderBytes, MaxColumns)}
	case !ended:
		return &HeaderError{fmt.Sprintf("the header does not end within its first %d bytes", maxHeaderBytes)}
	}
	return nil
}

func csvProblem(path string, err error) Problem {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Problem{File: path, Line: pe.StartLine, Rule: RuleFormat,
			Message: fmt.Sprintf("CSV syntax: %v (line %d, byte %d); quote fields that contain quotes, commas or line breaks and double the quotes inside them", pe.Err, pe.Line, pe.Column)}
	}
	return Problem{File: path, Line: 1, Rule: RuleFormat, Message: err.Error()}
}

// header checks the header row and returns the column of each field.
func (v *validator) header(f *File) ([]schema.Column, bool) {
	d := f.Dataset
	ok := true
	var columns []schema.Column
	where := map[string]int{}
	for i, name := range f.Header {
		if !utf8.ValidString(name) {
			v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleEncoding, Message: fmt.Sprintf("header field %d is not valid UTF-8", i+1)})
			ok = false
			continue
		}
		if first, dup := where[name]; dup {
			v.report.add(Problem{File: f.Path, Line: 1, Column: name, Rule: RuleHeader,
				Message: fmt.Sprintf("duplicate column %s (fields %d and %d)", escape.Quote(name), first+1, i+1)})
			ok = false
			continue
		}
		where[name] = i
		c, known := d.Column(name)
		if !known {
			v.report.add(Problem{File: f.Path, Line: 1, Column: name, Rule: RuleHeader,
				Message: fmt.Sprintf("unknown column %s; %s columns are: %s", escape.Quote(name), d.Name, strings.Join(d.ColumnNames(), ","))})
			ok = false
		}
		columns = append(columns, c)
	}
	for _, c := range d.Columns {
		if _, found := where[c.Name]; !found {
			v.report.add(Problem{File: f.Path, Line: 1, Column: c.Name, Rule: RuleHeader,
				Message: fmt.Sprintf("missing column %q", c.Name)})
			ok = false
		}
	}
	return columns, ok
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
