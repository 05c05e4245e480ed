package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

var schemaFormats = []string{"text", "json"}

func newSchemaCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print the agent-facing description of a tool: tables, columns, types, meanings, examples",
		UsageText: "ctool schema [" + bar(schemaTopics()) + "] [--format " + bar(schemaFormats) + "]",
		Description: "Without a name, describes all four tools. The text is what an agent is given for each tool;\n" +
			"--format json gives the same content as data, with the examples as [{\"question\", \"sql\"}]. The values\n" +
			"of label columns (category, tag, ...) and the columns' examples come from the build --db or CTOOL_DB\n" +
			"names; without one, no label values are listed and the description says where they come from." +
			exitStatus("ok", fault.KindUsage),
		Flags: []cli.Flag{formatFlag("output", "text", schemaFormats...), dbFlag()},
		Action: func(c *cli.Context) error {
			opts := &schemaOptions{out: e.stdout, db: e.dbPath(c)}
			var err error
			if opts.format, err = choiceValue(c, "format"); err != nil {
				return err
			}
			if opts.datasets, err = schemaArgs(c.Args().Slice()); err != nil {
				return err
			}
			return runSchema(c.Context, e, opts)
		},
	}
}

// schemaOptions is a `ctool schema` command line, checked.
type schemaOptions struct {
	out      io.Writer
	format   string // text or json
	db       string // the database whose label values the descriptions list, if it is built
	datasets []*schema.Dataset
}

func runSchema(ctx context.Context, e *env, opts *schemaOptions) error {
	vocab := vocabulary(ctx, opts.db)
	if opts.format == "json" {
		var docs []schema.Doc
		for _, d := range opts.datasets {
			docs = append(docs, schema.DescribeWith(d, vocab))
		}
		if len(docs) == 1 {
			return textout.JSONFor(opts.out, docs[0])
		}
		return textout.JSONFor(opts.out, docs)
	}
	for i, d := range opts.datasets {
		if i > 0 {
			fmt.Fprintln(opts.out, "\n"+strings.Repeat("=", 72)+"\n")
		}
		fmt.Fprint(opts.out, schema.HelpWith(d, vocab))
	}
	return nil
}

// schemaTopics are what schema describes: the public datasets, and "profile" for the profiles tool.
func schemaTopics() []string { return append(queryDatasets(), "profile") }

// schemaArgs maps the command's arguments to datasets; "profile" names the profiles tool.
func schemaArgs(args []string) ([]*schema.Dataset, error) {
	if len(args) == 0 {
		return append(schema.Public(), schema.Profiles), nil
	}
	var out []*schema.Dataset
	for _, a := range args {
		name := a
		if a == "profile" {
			name = "profiles"
		}
		d, err := schema.ByName(name)
		if err != nil {
			return nil, unknownWord(fmt.Sprintf("unknown dataset %q: use %s", a, orList(schemaTopics())), a, schemaTopics(), "")
		}
		out = append(out, d)
	}
	return out, nil
}
