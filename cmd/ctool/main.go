// Command ctool gives a concierge agent safe, fast SQL access to the Azabudai Hills stores, events and
// products, and a one-at-a-time lookup of the user's profile. This package only wires flags to the
// domain packages; the work happens in ingest/, query/ and schema/.
package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const (
	defaultDB    = "data/ctool.duckdb"
	defaultInput = "input"
)

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

// run executes one command line and returns the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	return exitStatus(app.Run(args), stderr)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "ctool",
		Usage:   "safe SQL over the Azabudai Hills stores, events and products, for a concierge agent",
		Version: version,
		Description: "ctool ingest builds data/ctool.duckdb from the CSV files in input/; ctool query runs one guarded,\n" +
			"read-only SELECT of an agent against it (at most 10 rows); ctool profile returns one user's profile.\n" +
			"ctool schema and ctool tools describe the tools for agents." +
			exitStatusHelp("0  success", "1  the data has problems, or a query was refused or failed, or a profile was not found",
				"2  usage error", "3  the database is missing or unusable (run 'ctool ingest')"),
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		// Exit codes are decided in run, never by the library.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		Commands: []*cli.Command{
			newIngestCommand(),
			newValidateCommand(),
			newStatusCommand(),
			newQueryCommand(),
			newProfileCommand(),
			newSchemaCommand(),
			newToolsCommand(),
		},
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors routes every command's flag errors, subcommands' too, to exit status 2.
func setUsageErrors(commands []*cli.Command) {
	for _, c := range commands {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		setUsageErrors(c.Subcommands)
	}
}
