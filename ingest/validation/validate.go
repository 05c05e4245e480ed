// Package validation reads and checks the CSV files of the input directory, as `ctool validate`
// reports them and `ctool ingest` obeys: every problem with its file, line, column and rule (entries,
// encodings, headers, cells, JSON, keys and references, venues, the place file, the contracts), and
// the reports in every format. It reads input files only through OpenInput, and it neither writes nor
// reads a build: ingest/build loads what validation passed, ingest/changes compares it with the
// previous build (Options.OpenPrevious).
package validation

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/venuematch"
	"github.com/xeipuuv/gojsonschema"
)

// File is one input file as validation saw it; the build's load uses the same facts to cross-check
// DuckDB.
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
}

// SameFile reports whether info is the stat of the very file validation read (the same device and
// inode): the load reads a file it opened itself, and must have read this one.
func (f *File) SameFile(info fs.FileInfo) bool {
	return f.info != nil && info != nil && os.SameFile(f.info, info)
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

// Run checks every dataset's files in dir and reports every problem, keeping at most opts.MaxErrors
// of them, and tells opts.Progress how far it has read. The error is for failures that are not the
// data's fault.
func Run(dir string, opts Options) (*Result, error) {
	return RunContext(context.Background(), dir, opts)
}

// RunContext is Run that stops once ctx is done, returning ctx's error.
func RunContext(ctx context.Context, dir string, opts Options) (res *Result, err error) {
	inputs, err := Inputs(dir)
	if err != nil {
		return nil, err
	}
	v, err := newValidator(opts.MaxErrors)
	if err != nil {
		return nil, err
	}
	v.report.failed, v.ctx, v.observe = opts.Failed, ctx, opts.Observe
	v.report.Version = opts.Version
	v.strict = opts.Strict || opts.Contracts != nil && opts.Contracts.Strict
	v.maxFileSize = opts.MaxFileSize
	if v.maxFileSize <= 0 {
		v.maxFileSize = DefaultMaxFileSize
	}
	if opts.Contracts != nil {
		v.watch = &watch{latestEnd: map[*schema.Dataset]string{}}
		if against := opts.Contracts.Against; against != "" {
			if opts.OpenPrevious == nil {
				return nil, errors.New("validation: Contracts.Against needs Options.OpenPrevious (ingest.Validate sets it)")
			}
			// Read beside validation from here on; closed, or abandoned when validation fails first.
			v.watch.previous = opts.OpenPrevious(against)
			defer v.watch.previous.Close()
		}
	}
	files := map[*schema.Dataset][]string{}
	v.progress.report = opts.Progress
	for _, in := range inputs {
		files[in.Dataset] = append(files[in.Dataset], in.Name())
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
			path := filepath.Join(dir, want)
			v.report.add(Problem{File: path, Rule: RuleMissingFile,
				Message: fmt.Sprintf("%s data file %s is missing from %s", d.Name, d.SourceFile, dir)})
			v.report.skipAll(path, "not run: the file is missing")
			continue
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			f := &File{Dataset: d, Name: name, Path: filepath.Join(dir, name)}
			if !utf8.ValidString(name) {
				// The build records each file's name (profiles' source_file, ctool_meta.sources), and
				// DuckDB holds only UTF-8 text.
				v.report.add(Problem{File: f.Path, Rule: RuleEncoding, Message: "the file name is not valid UTF-8; rename the file"})
				v.report.skipAll(f.Path, "not run: the file name is not UTF-8")
				res.Files = append(res.Files, f)
				continue
			}
			keys, err := v.file(f, storeIDs)
			if err != nil {
				return nil, err
			}
			switch {
			case d == schema.Stores && keys != nil:
				storeIDs = keys
				v.venues = &venueCheck{venues: venuematch.New(v.stores), seen: map[string]*Problem{}}
			case storeIDs == nil:
				// Stores come first: without their file read, no store can be looked up.
				v.report.skip(f.Path, "not run: the stores file could not be read", RuleReference, RuleVenue)
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
	if opts.Contracts != nil {
		if err := v.checkContracts(res, opts.Contracts, v.watch); err != nil {
			return nil, err
		}
	} else {
		for _, f := range res.Files {
			v.report.skip(f.Path, "not run: the contracts are checked by ctool validate", contractRules()...)
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
	// watch, with contracts, sees every complete record for them (contracts.go).
	watch *watch
	// allUTF8 reports whether every byte of the current file read so far is UTF-8, so that cells need
	// no check of their own.
	allUTF8 func() bool
	ctx     context.Context
	observe func(f *File, record []string) // Options.Observe
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
	// row is the record being checked, nil between records, and rowKey where its file's key cells
	// are: a problem of the row names its record (record.go).
	row    []string
	rowKey []keyAt
}

// newValidator compiles every dataset's JSON Schemas once.
func newValidator(maxErrors int) (*validator, error) {
	v := &validator{report: &Report{Max: maxErrors}, schemas: map[string]*gojsonschema.Schema{}, seen: map[string][]jsonProblem{},
		plain: map[string]struct{}{}, ctx: context.Background()}
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
