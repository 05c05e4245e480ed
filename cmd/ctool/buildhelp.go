package main

import (
	"context"
	"fmt"

	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

// The help an agent reads lists label values; they are the build's, or none are listed and the
// description says where they come from (an agent that compares with a word the build never held gets
// nothing back, and a list of the schema's words would pass for the data's).

// noBuildNote is the help's line when no build could be read at db.
func noBuildNote(db string) string {
	return fmt.Sprintf("No build at %s: the description lists no label values (name a build with --db or CTOOL_DB; ctool ingest makes one).\n", db)
}

// setBuildHelp makes `ctool query DATASET --help` (and `ctool help query DATASET`) describe the build
// that --db or CTOOL_DB names. Only a line that asks for help reads the build.
func setBuildHelp(e *env, app *cli.App, line commandLine) {
	query := findCommand(app.Commands, "query")
	if query == nil || line.leaf == nil {
		return
	}
	var args []string // the line's arguments, after the "--" arrange puts before them
	for i, a := range line.args {
		if a == "--" {
			args = line.args[i+1:]
			break
		}
	}
	var target *cli.Command
	switch {
	case line.help:
		target = line.leaf
	case line.leaf.Name == "help" && len(args) == 2 && args[0] == "query": // ctool help query DATASET
		target = findCommand(query.Subcommands, args[1])
	case line.leaf == query && len(args) == 2 && args[0] == "help": // ctool query help DATASET
		target = findCommand(query.Subcommands, args[1])
	}
	if target == nil {
		return
	}
	for _, d := range schema.Public() {
		if findCommand(query.Subcommands, d.Name) != target {
			continue
		}
		db := line.db
		if db == "" {
			db = e.getenv("CTOOL_DB")
		}
		if db == "" {
			db = defaultDB
		}
		v := vocabulary(context.Background(), db)
		note := fmt.Sprintf("Label values and column examples are those of the build at %s.\n", db)
		if v == nil {
			note = noBuildNote(db)
		}
		target.Description = schema.HelpWith(d, v) + "\n" + note + exitStatus("the query ran (zero rows is fine)", queryKinds...)
	}
}
