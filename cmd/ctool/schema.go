package main

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/textout"
	"github.com/urfave/cli/v2"
)

func newSchemaCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print the agent-facing description of a tool: tables, columns, types, meanings, examples",
		UsageText: "ctool schema [events|stores|products|profile] [--format text|json]",
		Description: "Without a name, describes all four tools. The text is what an agent is given for each tool;\n" +
			"--format json gives the same content as data, with the examples as [{\"question\", \"sql\"}]. The values\n" +
			"of label columns (category, tag, ...) come from the database --db names when it is built, else from schema/." +
			exitStatus("ok", ctool.KindUsage),
		Flags: []cli.Flag{formatFlag("output `FORMAT`: text or json", "text"), dbFlag()},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := oneOf("format", format, "text", "json"); err != nil {
				return err
			}
			datasets, err := schemaArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			vocab := e.vocabulary(c)
			if format == "json" {
				var docs []schema.Doc
				for _, d := range datasets {
					docs = append(docs, schema.DescribeWith(d, vocab))
				}
				if len(docs) == 1 {
					return textout.JSON(e.stdout, docs[0])
				}
				return textout.JSON(e.stdout, docs)
			}
			for i, d := range datasets {
				if i > 0 {
					fmt.Fprintln(e.stdout, "\n"+strings.Repeat("=", 72)+"\n")
				}
				fmt.Fprint(e.stdout, schema.HelpWith(d, vocab))
			}
			return nil
		},
	}
}

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
			return nil, usageError("unknown dataset %q: use events, stores, products or profile", a)
		}
		out = append(out, d)
	}
	return out, nil
}
