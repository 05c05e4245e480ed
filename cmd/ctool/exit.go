package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/urfave/cli/v2"
)

// answered marks an error whose command already wrote its machine-readable answer on stdout (a
// validation report, say): in JSON mode nothing more is written there.
type answered struct{ error }

func (a answered) Unwrap() error { return a.error }

func usageError(format string, args ...any) *fault.Error {
	return fault.Errorf(fault.KindUsage, format, args...)
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	hint := c.Command.HelpName + " --help"
	if c.Command.HelpName == "" {
		hint = c.App.Name + " --help"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		flags := c.App.Flags
		if c.Command.Name != "" {
			flags = c.Command.Flags
		}
		var names []string
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) > 1 { // -h and the like: a long name says more
					names = append(names, n)
				}
			}
		}
		return unknownFlag(msg, name, names, hint)
	}
	return &fault.Error{Kind: fault.KindUsage, Message: msg, Hint: hint}
}

// report writes a command's error where its reader looks, and returns the exit status: in JSON mode
// {"error", "kind", "hint"} on stdout, otherwise "ctool: message" and "Try: hint" on stderr.
func report(err error, jsonMode bool, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	e := fault.Explain(err)
	if jsonMode {
		if errors.As(err, new(answered)) {
			// The answer on stdout says what is wrong; people reading the terminal get the summary.
			fmt.Fprintf(stderr, "ctool: %s\n", shownMessage(e.Message))
		} else {
			// One line, as the design documents' {"error": "..."}.
			textout.JSONLine(stdout, e)
		}
		return e.Kind.Status()
	}
	fmt.Fprintf(stderr, "ctool: %s\n", shownMessage(e.Message))
	if e.Hint != "" {
		fmt.Fprintf(stderr, "Try: %s\n", escape.Visible(e.Hint))
	}
	return e.Kind.Status()
}

// shownMessage is an error's message for a terminal. It may quote the query or the data, so every
// character that could move the cursor, recolour or reorder the text is shown escaped, and each line
// after the first is indented: no line of it can pass for ctool's own "ctool:" or "Try:" line.
func shownMessage(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = escape.Visible(l)
	}
	return strings.Join(lines, "\n  ")
}
