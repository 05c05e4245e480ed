package query

import "io"

// WriteTable renders res as a table for a terminal width columns wide: when the table is wider, the widest
// columns are narrowed and their cells wrapped so that every line fits, and when that would leave a
// column too narrow to read, each row is shown as a block of "column | value" lines instead
// (textout.Fit). width 0 does not fit.
func WriteTable(out io.Writer, res *Result, width int) error {
	return writeTable(out, false, res, width)
}
