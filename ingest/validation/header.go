package validation

// A file's encoding and header, read before any record: what makes the whole file unreadable is one
// problem for the file.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
)

// CSVReader reads CSV records from r after a UTF-8 byte order mark, if there is one. A file that is
// not UTF-8 as a whole (see sniffEncoding) is an error, reported once for the file, and so is a header
// wider than MaxColumns fields or longer than maxHeaderBytes (a *HeaderError), found before anything
// splits it.
func CSVReader(r io.Reader, bufferSize int) (*csv.Reader, error) {
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

// ReadHeader reads a file's header row as validation reads it: after a UTF-8 byte order mark, if
// there is one, from a file that is UTF-8 as far as its start shows, within the header's bounds. The
// load plans its files with it, before validation has read them.
func ReadHeader(r io.Reader) ([]string, error) {
	cr, err := CSVReader(r, sniffBytes)
	if err != nil {
		return nil, err
	}
	return cr.Read()
}

// header checks the header row and returns the column of each field.
func (v *validator) header(f *File) ([]schema.Column, bool) {
	d := f.Dataset
	ok := true
	var columns []schema.Column
	var unknown []int // fields of the header that name no column
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
			unknown = append(unknown, i)
			v.report.add(Problem{File: f.Path, Line: 1, Column: name, Rule: RuleHeader,
				Message: fmt.Sprintf("unknown column %s; %s columns are: %s", escape.Quote(name), d.Name, strings.Join(d.ColumnNames(), ","))})
			ok = false
		}
		columns = append(columns, c)
	}
	var missing []int // indexes in d.Columns
	for i, c := range d.Columns {
		if _, found := where[c.Name]; !found {
			missing = append(missing, i)
		}
	}
	renamed := renames(d, f.Header, missing, unknown)
	for _, i := range missing {
		c := d.Columns[i]
		msg := fmt.Sprintf("missing column %q", c.Name)
		if field, ok := renamed[i]; ok {
			msg = fmt.Sprintf("missing column %q (column %d of %s); the header has %s as field %d — renamed?",
				c.Name, i+1, d.Name, escape.Quote(f.Header[field]), field+1)
		}
		v.report.add(Problem{File: f.Path, Line: 1, Column: c.Name, Rule: RuleHeader, Message: msg})
		ok = false
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
