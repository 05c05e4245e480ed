package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// Exit statuses, shared by every command and listed in each command's help.
const (
	exitOK       = 0
	exitFailed   = 1 // the data has problems, or a query was refused or failed
	exitUsage    = 2 // the command line is wrong
	exitDatabase = 3 // the database is missing or unusable
)

// exitError carries a status and a message for people; quiet means the command already wrote its
// error (for example as JSON on stdout) and run prints nothing more.
type exitError struct {
	code  int
	msg   string
	hint  string
	quiet bool
}

func (e *exitError) Error() string { return e.msg }

func failed(format string, args ...any) error {
	return &exitError{code: exitFailed, msg: fmt.Sprintf(format, args...)}
}

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func quietExit(code int) error { return &exitError{code: code, quiet: true} }

func onUsageError(c *cli.Context, err error, _ bool) error {
	return &exitError{code: exitUsage, msg: err.Error(), hint: fmt.Sprintf("run '%s --help'", c.Command.HelpName)}
}

// exitStatus decides the process status for a command's error and reports it on stderr.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if !errors.As(err, &e) {
		fmt.Fprintf(stderr, "ctool: %v\n", err)
		return exitFailed
	}
	if !e.quiet {
		fmt.Fprintf(stderr, "ctool: %s\n", e.msg)
		if e.hint != "" {
			fmt.Fprintf(stderr, "Try: %s\n", e.hint)
		}
	}
	return e.code
}

// exitStatusHelp is the EXIT STATUS section of a command's help.
func exitStatusHelp(lines ...string) string {
	s := "\n\nEXIT STATUS:\n"
	for _, l := range lines {
		s += "   " + l + "\n"
	}
	return s
}
