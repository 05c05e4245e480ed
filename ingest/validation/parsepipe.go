package validation

import (
	"encoding/csv"
	"errors"
	"io"
)

// parsed is one record as the parser read it, or the error it met instead.
type parsed struct {
	record []string // nil when the record does not have the header's width
	fields int      // how many fields the record has
	line   int      // where the record starts
	lines  []int    // the line each cell starts on, when a quoted cell has spread the record over lines; else nil
	read   int64    // bytes of the file read when it was parsed, for the progress report
	err    error
}

// parseBatch is how many records cross between the goroutines at once.
const parseBatch = 512

// parseAhead parses records on a goroutine of its own, batches ahead of the checks, which take them in
// the file's order: parsing and checking then run on both cores with every problem in the same order.
// It stops at the end of the file or at an error the reader cannot continue after. Call drain before
// touching hr again.
type parseAhead struct {
	ch    chan []parsed
	batch []parsed
}

func startParse(r *csv.Reader, hr *hashingReader, width int) *parseAhead {
	p := &parseAhead{ch: make(chan []parsed, 4)}
	go func() {
		defer close(p.ch)
		var cells []string
		batch := make([]parsed, 0, parseBatch)
		for {
			record, err := r.Read()
			if err == io.EOF {
				break
			}
			it := parsed{read: hr.n, err: err}
			if err == nil {
				it.fields = len(record)
				it.line, _ = r.FieldPos(0)
			}
			// The reader reuses the record's slice, not its strings. Only a record of the header's
			// width is kept (every other is reported by its width alone), so the batch's cells take
			// their room once, whatever width a hostile record has.
			if err == nil && len(record) == width {
				if cells == nil {
					cells = make([]string, 0, parseBatch*width)
				}
				start := len(cells)
				cells = append(cells, record...)
				it.record = cells[start:len(cells):len(cells)]
				// A problem in a cell is reported on the cell's line, which only a record over several
				// lines needs stored.
				if last, _ := r.FieldPos(width - 1); last != it.line {
					it.lines = make([]int, width)
					for i := range it.lines {
						it.lines[i], _ = r.FieldPos(i)
					}
				}
			}
			batch = append(batch, it)
			if err != nil && !Recoverable(err) {
				break
			}
			if len(batch) == parseBatch {
				p.ch <- batch
				batch, cells = make([]parsed, 0, parseBatch), nil
			}
		}
		if len(batch) > 0 {
			p.ch <- batch
		}
	}()
	return p
}

// cellLine is the line cell i of the record starts on.
func (it parsed) cellLine(i int) int {
	if it.lines == nil {
		return it.line
	}
	return it.lines[i]
}

// Recoverable reports whether the reader can go on after a CSV syntax error: it resumes at the next line.
func Recoverable(err error) bool {
	var pe *csv.ParseError
	return errors.As(err, &pe) && (pe.Err == csv.ErrBareQuote || pe.Err == csv.ErrQuote)
}

// next returns the next record in file order; false at the end.
func (p *parseAhead) next() (parsed, bool) {
	for len(p.batch) == 0 {
		b, ok := <-p.ch
		if !ok {
			return parsed{}, false
		}
		p.batch = b
	}
	it := p.batch[0]
	p.batch = p.batch[1:]
	return it, true
}

// drain waits for the parser to stop.
func (p *parseAhead) drain() {
	for range p.ch {
	}
}
