package main

import (
	"os"

	"github.com/urfave/cli/v2"
)

func dbFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "db", Value: defaultDB, Usage: "main database `PATH` (or set CTOOL_DB)"}
}

// dbPath is --db, else a non-empty CTOOL_DB, else the default: an empty variable means "not set".
func dbPath(c *cli.Context) string {
	if c.IsSet("db") {
		return c.String("db")
	}
	if env := os.Getenv("CTOOL_DB"); env != "" {
		return env
	}
	return defaultDB
}

// noLateFlags refuses arguments that look like flags after the first argument: the command line
// parser stops reading flags there, and silently taking "--format" as a name would confuse.
func noLateFlags(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && a[0] == '-' && a != "-" {
			return usageError("flags go before the arguments: %s %s ... (%q came after one)", c.Command.HelpName, a, a)
		}
	}
	return nil
}

func inputFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "input", Value: defaultInput, Usage: "`DIR` holding the CSV files"}
}

func formatFlag(usage, value string) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Value: value, Usage: usage}
}

// isTerminal reports whether w is a character device, where progress lines are welcome.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// oneOf checks a flag value against its allowed values.
func oneOf(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageError("--%s must be one of %v, not %q", flag, allowed, value)
}
