package main

import (
	"context"
	"fmt"
	"io"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

func newToolsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "tools",
		Usage:     "print the function-calling manifest of ctool's four agent tools",
		UsageText: "ctool tools [--format json|text]",
		Description: "A JSON array of {\"name\", \"description\", \"input_schema\", \"command\", \"argv\"}: description is the tool's\n" +
			"own description, standing alone (relations, columns, label values, examples on the typed views; the full\n" +
			"one is ctool schema DATASET), input_schema a JSON Schema of its one argument (sql_query or profile_id),\n" +
			"and command/argv the ctool command it maps to, with --db when --db or CTOOL_DB names the build, so an\n" +
			"agent framework can register the tools without copying them. --format text gives the rules the tools\n" +
			"share once, then each description. Label values and column examples come from the build --db or\n" +
			"CTOOL_DB names; without one, each description lists no label values and says where they come from." +
			exitStatus("ok", fault.KindUsage),
		Flags: []cli.Flag{formatFlag("output", "json", "json", "text"), dbFlag()},
		Action: func(c *cli.Context) error {
			opts := &toolsOptions{out: e.stdout, db: e.dbPath(c)}
			if c.IsSet("db") || e.getenv("CTOOL_DB") != "" {
				opts.dbFlag = opts.db
			}
			var err error
			if opts.format, err = choiceValue(c, "format"); err != nil {
				return err
			}
			if err := noArgs(c); err != nil {
				return err
			}
			return runTools(c.Context, e, opts)
		},
	}
}

// toolsOptions is a `ctool tools` command line, checked.
type toolsOptions struct {
	out    io.Writer
	format string // json or text
	db     string // the database whose label values the descriptions list, if it is built
	dbFlag string // --db as given, for the commands of the manifest; "" when not given
}

func runTools(ctx context.Context, e *env, opts *toolsOptions) error {
	tools := schema.ManifestWith(vocabulary(ctx, opts.db), opts.dbFlag, schema.ForCommands)
	if opts.format == "json" {
		return textout.JSONFor(opts.out, tools)
	}
	// Text is read whole: the shared rules once, then each tool's own description.
	fmt.Fprintln(opts.out, "共通のきまり:")
	for _, r := range schema.SharedRules() {
		fmt.Fprintf(opts.out, "- %s\n", r)
	}
	for _, t := range tools {
		fmt.Fprintf(opts.out, "\n== %s\n$ %s\n%s", t.Name, t.Command, t.Description)
	}
	return nil
}
