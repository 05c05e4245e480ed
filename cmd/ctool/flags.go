package main

import (
	"errors"
	"io/fs"
	"time"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/urfave/cli/v2"
)

func dbFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "db", Value: defaultDB, Usage: "main database `PATH` (or set CTOOL_DB)", TakesFile: true}
}

// dbPath is --db, else a non-empty CTOOL_DB, else the default: an empty variable means "not set".
func (e *env) dbPath(c *cli.Context) string {
	if c.IsSet("db") {
		return c.String("db")
	}
	if v := e.getenv("CTOOL_DB"); v != "" {
		return v
	}
	return defaultDB
}

func inputFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "input", Value: defaultInput, Usage: "`DIR` holding the CSV files", TakesFile: true}
}

// missingInput adds a hint to the error of a command run without --input in a directory that has no
// input/: the default is relative to the working directory, which is the repository only in a clone.
func missingInput(c *cli.Context, err error) error {
	var pe *fs.PathError
	if err == nil || c.IsSet("input") || !errors.As(err, &pe) || pe.Path != defaultInput || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	e := fault.Explain(err)
	if e.Hint != "" && e.Hint != validation.InputHint {
		return err
	}
	return &fault.Error{Kind: e.Kind, Message: e.Message, Err: err,
		Hint: c.Command.HelpName + " --input DIR (the directory of CSV files; input/ is read from the working directory)"}
}

// callTimeout is a command's --timeout, which bounds one query or call.
func callTimeout(c *cli.Context) (time.Duration, error) {
	d := c.Duration("timeout")
	if d <= 0 || d > query.MaxTimeout {
		return 0, usageError("--timeout must be positive and at most %s", query.MaxTimeout)
	}
	return d, nil
}

// noArgs refuses arguments to a command that takes none.
func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("%s takes no arguments, got %q", c.Command.Name, c.Args().First()).WithHint(c.Command.HelpName + " --help")
	}
	return nil
}

// exitStatus is the EXIT STATUS section of a command's help.
func exitStatus(success string, kinds ...fault.Kind) string {
	return "\n\n" + fault.ExitStatusHelp(success, kinds...)
}

// setValues is a string flag's value when the command line sets it, even to "", and nothing when it
// does not: a setting given empty must be checked, not taken for "not given".
func setValues(c *cli.Context, name string) []string {
	if !c.IsSet(name) {
		return nil
	}
	return []string{c.String(name)}
}
