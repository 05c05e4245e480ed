package main

import (
	"context"
	"fmt"
	"io"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/textout"
	"github.com/urfave/cli/v2"
)

func newToolsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "tools",
		Usage:     "print the function-calling manifest of ctool's four agent tools",
		UsageText: "ctool tools [--format json|text]",
		Description: "A JSON array of {\"name\", \"description\", \"input_schema\", \"command\", \"argv\"}: description is the tool's\n" +
			"full help text, input_schema a JSON Schema of its one argument (sql_query or profile_id), and command/argv\n" +
			"the ctool command it maps to, so an agent framework can register the tools without copying them. Label\n" +
			"values come from the database --db names when it is built." +
			exitStatus("ok", ctool.KindUsage),
		Flags: []cli.Flag{formatFlag("output", "json", "json", "text"), dbFlag()},
		Action: func(c *cli.Context) error {
			opts := &toolsOptions{out: e.stdout, db: e.dbPath(c)}
			var err error
			if opts.format, err = choiceValue(c, "format"); err != nil {
				return err
			}
			if err := noArgs(c); err != nil {
				return err
			}
			return runTools(c.Context, opts)
		},
	}
}

// toolsOptions is a `ctool tools` command line, checked.
type toolsOptions struct {
	out    io.Writer
	format string // json or text
	db     string // the database whose label values the descriptions list, if it is built
}

func runTools(ctx context.Context, opts *toolsOptions) error {
	tools := schema.ManifestWith(vocabulary(ctx, opts.db))
	if opts.format == "json" {
		return textout.JSON(opts.out, tools)
	}
	for _, t := range tools {
		fmt.Fprintf(opts.out, "%-17s %s\n", t.Name, t.Command)
	}
	return nil
}
