package textout

import (
	"io"
	"os"

	"golang.org/x/term"
)

// JSONFor writes v for whoever reads w, as gh does: indented on a terminal, where a person reads it,
// and on one line otherwise, where a program or an agent reads it and indentation is only bytes.
func JSONFor(w io.Writer, v any) error {
	if IsTerminal(w) {
		return JSON(w, v)
	}
	return JSONLine(w, v)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
