package main

import (
	"fmt"

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
		Flags: []cli.Flag{formatFlag("output `FORMAT`: json or text", "json"), dbFlag()},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if err := oneOf("format", format, "json", "text"); err != nil {
				return err
			}
			if err := noArgs(c); err != nil {
				return err
			}
			tools := schema.ManifestWith(e.vocabulary(c))
			if format == "json" {
				return textout.JSON(e.stdout, tools)
			}
			for _, t := range tools {
				fmt.Fprintf(e.stdout, "%-17s %s\n", t.Name, t.Command)
			}
			return nil
		},
	}
}
