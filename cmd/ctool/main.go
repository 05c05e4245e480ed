// Command ctool gives a concierge agent safe, fast SQL access to a neighbourhood's stores, events and
// products, and a one-at-a-time lookup of the user's profile. This package only wires command lines to
// the domain packages; the work happens in ingest/, query/, profile/, database/ and schema/.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const (
	defaultDB    = "data/ctool.duckdb"
	defaultInput = "input"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command may use of its process: its streams and its environment variables. Tests
// pass their own, so nothing global is swapped.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// limitMemory caps the process's memory before a command opens the database; nil leaves it alone
	// (tests run commands inside the test process, whose memory is not a query's to cap).
	limitMemory func() error
	// terminal says whether stdout is a terminal and its size, for tables that fit it and the pager
	// (pager.go); nil means it is not one. lookupEnv tells an empty variable from an unset one; nil
	// reads getenv.
	terminal  func() (terminal, bool)
	lookupEnv func(string) (string, bool)
}

// run executes one command line and returns the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(&env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, limitMemory: worker.LimitMemory,
		terminal: func() (terminal, bool) { return fileTerminal(stdout) }, lookupEnv: os.LookupEnv}, args)
}

func runWith(e *env, args []string) int {
	var app *cli.App
	if len(args) > 1 && args[1] == worker.CommandName {
		app = newWorkerApp(e)
	} else {
		app = newApp(e)
	}
	line := arrange(app, args)
	setBuildHelp(e, app, line)
	jsonMode := line.format == "json" || line.format == "jsonl"
	var err error
	if line.leaf == nil && len(line.positional) > 0 && !line.help {
		// Before the app reads flags that only the command meant would have.
		err = unknownCommand(app, line.positional[0])
	} else {
		err = app.Run(line.args)
	}
	var m *misspelt
	if errors.As(err, &m) && m.fix != "" {
		m.err.Hint = correctedLine(args, m)
	}
	return report(err, jsonMode, e.stdout, e.stderr)
}

// unknownCommand is the usage error for a command ctool does not have, with the most similar of those
// it has.
func unknownCommand(app *cli.App, name string) error {
	return unknownWord(fmt.Sprintf("unknown command %q", name), name, commandNames(app.Commands), "ctool --help")
}

// commandNames are the names of the commands people may type (hidden ones are not suggested).
func commandNames(commands []*cli.Command) []string {
	var names []string
	for _, c := range commands {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return names
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "ctool",
		Usage:   "safe SQL over a neighbourhood's stores, events and products, for a concierge agent",
		Version: version,
		Description: "ctool ingest builds data/ctool.duckdb from the CSV files in input/; ctool query runs one guarded,\n" +
			fmt.Sprintf("read-only SELECT of an agent against it (at most %d rows); ctool profile returns one user's profile;\n", schema.RowCap) +
			"ctool mcp serves the same tools to MCP clients. ctool schema and ctool tools describe the tools for agents.\n" +
			"Flags may come before or after the arguments; after -- nothing is a flag. With --format json every\n" +
			"failure is {\"error\", \"kind\", \"hint\"} on stdout.\n\n" + allExitStatuses(),
		Reader:                 e.stdin,
		Writer:                 e.stdout,
		ErrWriter:              e.stderr,
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		// --site's values are paths and URLs: a comma in one is no separator.
		DisableSliceFlagSeparator: true,
		// Exit codes are decided in run, never by the library.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		// The library adds --help only when no command is named help; ours is (help.go).
		Flags: []cli.Flag{cli.HelpFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			newIngestCommand(e),
			newValidateCommand(e),
			newStatusCommand(e),
			newPublishCommand(e),
			newQueryCommand(e),
			newProfileCommand(e),
			newSchemaCommand(e),
			newToolsCommand(e),
			newMCPCommand(e),
			newConsoleCommand(e),
			newCompletionCommand(),
			newManCommand(),
			newHelpCommand(),
			newVersionCommand(),
			newWorkerCommand(e),
		},
	}
	setUsageErrors(app.Commands)
	return app
}

// newWorkerApp is the app of a query worker's process: its hidden command alone. ctool starts one for
// every `ctool query`, and building the other commands (their help texts above all) would cost each
// call a millisecond of CPU for nothing.
func newWorkerApp(e *env) *cli.App {
	app := &cli.App{
		Name:            "ctool",
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError:    onUsageError,
		Commands:        []*cli.Command{newWorkerCommand(e)},
	}
	setUsageErrors(app.Commands)
	return app
}

// allExitStatuses is the app's EXIT STATUS section: every kind of failure.
func allExitStatuses() string {
	var kinds []fault.Kind
	for _, k := range fault.Kinds {
		kinds = append(kinds, k.Kind)
	}
	return fault.ExitStatusHelp("success", kinds...)
}

// setUsageErrors routes every command's flag errors, subcommands' too, to the usage exit status.
func setUsageErrors(commands []*cli.Command) {
	for _, c := range commands {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		setUsageErrors(c.Subcommands)
	}
}
