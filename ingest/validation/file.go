package validation

// Reading one file: its bytes (read ahead, hashed and checked as UTF-8 on another goroutine:
// readahead.go), its records (parsed on a third: parsepipe.go), and every record's checks.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/venuematch"
)

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
	fh, info, err := OpenInput(f.Path, v.maxFileSize)
	var ee *EntryError
	if errors.As(err, &ee) {
		v.report.add(entryProblem(ee))
		v.report.skipAll(f.Path, "not run: the entry was refused (file)")
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
	r, err := CSVReader(hr, 1<<20)
	var he *HeaderError
	if errors.As(err, &he) {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleHeader, Message: he.Message})
		v.report.skip(f.Path, "not run: the header could not be read", recordRules...)
		return nil, nil
	}
	if err != nil {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleEncoding, Message: fmt.Sprintf("%s %v", escape.Visible(f.Name), err)})
		v.report.skip(f.Path, "not run: the file is not UTF-8", append([]string{RuleHeader}, recordRules...)...)
		return nil, nil
	}
	r.FieldsPerRecord = -1
	r.ReuseRecord = true

	d := f.Dataset
	header, err := r.Read()
	if err == io.EOF {
		v.report.add(Problem{File: f.Path, Line: 1, Rule: RuleHeader,
			Message: "file is empty; expected the header " + strings.Join(d.ColumnNames(), ",")})
		v.report.skip(f.Path, "not run: the file is empty", recordRules...)
		return nil, nil
	}
	if err != nil {
		v.report.add(csvProblem(f.Path, err))
		v.report.skip(f.Path, "not run: the header could not be read", append([]string{RuleHeader}, recordRules...)...)
		return nil, nil
	}
	f.Header = append([]string(nil), header...)
	columns, ok := v.header(f)
	if !ok {
		v.report.skip(f.Path, "not run: the header does not name the dataset's columns", recordRules...)
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
	v.rowKey = rowKey(f)
	defer func() { v.row = nil }()
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
			if Recoverable(err) {
				v.report.add(csvProblem(f.Path, err))
				continue
			}
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		v.row = nil
		f.Rows++
		v.progress.record(it.read)
		if f.Rows%4096 == 0 && v.ctx.Err() != nil {
			return nil, v.ctx.Err()
		}
		if it.fields != len(columns) {
			v.report.add(Problem{File: f.Path, Line: line, Rule: RuleRagged,
				Message: fmt.Sprintf("expected %d fields as in the header, found %d", len(columns), it.fields)})
			continue
		}
		v.row = record
		if v.watch != nil {
			v.watch.observe(f, record)
		}
		if v.observe != nil {
			v.observe(f, record)
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
				v.addRow(Problem{File: f.Path, Line: it.cellLine(key), Column: d.PrimaryKey, Rule: RuleUnique,
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
					v.addRow(Problem{File: f.Path, Line: it.cellLine(at), Column: ref.Column, Rule: RuleReference,
						Message: fmt.Sprintf("%s is not a %s.%s", escape.Quote(id), ref.Dataset, ref.Key)})
				}
			}
		}
	}
	return keys, nil
}
