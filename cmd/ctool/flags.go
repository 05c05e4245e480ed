package main

import (
	"os"

	"github.com/urfave/cli/v2"
)

func dbFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "db", Value: defaultDB, EnvVars: []string{"CTOOL_DB"}, Usage: "main database `PATH`"}
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
