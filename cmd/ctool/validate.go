package main

import (
	"fmt"

	"github.com/azabudai/ctool/ingest"
	"github.com/urfave/cli/v2"
)

type validateOptions struct {
	input     string
	format    string
	maxErrors int
}

func newValidateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check the CSV files in the input directory without building anything (for CI)",
		UsageText: "ctool validate [--input DIR] [--format text|json|github] [--max-errors N]",
		Description: "Checks every data file and reports every problem with its file, the line where the record starts,\n" +
			"the column, a rule word and what was expected. Rule words: missing-file, encoding, header, ragged,\n" +
			"required, type, format, enum, json, schema, unique, reference.\n" +
			"Formats: text (FILE:LINE: COLUMN: RULE: message), json ({\"valid\",\"error_count\",\"errors\"}),\n" +
			"github (workflow annotations for the first 10, plain lines for the rest)." +
			exitStatusHelp("0  the data is valid", "1  the data has problems", "2  usage error"),
		Flags: []cli.Flag{
			inputFlag(),
			formatFlag("report `FORMAT`: text, json or github", ingest.FormatText),
			&cli.IntFlag{Name: "max-errors", Value: 100, Usage: "report at most `N` problems (all are counted; 0 for no cap)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("validate takes no arguments, got %q", c.Args().First())
			}
			return runValidate(c, validateOptions{input: c.String("input"), format: c.String("format"), maxErrors: c.Int("max-errors")})
		},
	}
}

func runValidate(c *cli.Context, opts validateOptions) error {
	if err := oneOf("format", opts.format, ingest.FormatText, ingest.FormatJSON, ingest.FormatGitHub); err != nil {
		return err
	}
	if opts.maxErrors < 0 {
		return usageError("--max-errors must be 0 or more")
	}
	vopts := ingest.Options{MaxErrors: opts.maxErrors}
	if isTerminal(c.App.ErrWriter) {
		vopts.Progress = ingest.ProgressBar(c.App.ErrWriter)
	}
	res, err := ingest.Validate(opts.input, vopts)
	if err != nil {
		return usageError("%v", err)
	}
	if err := res.Report.Write(c.App.Writer, opts.format); err != nil {
		return err
	}
	if !res.Report.Valid() {
		return failed("%s in %s", ingest.Problems(res.Report.Count), opts.input)
	}
	rows := 0
	for _, f := range res.Files {
		rows += f.Rows
	}
	fmt.Fprintf(c.App.ErrWriter, "ctool validate: %s is valid (%d files, %d rows)\n", opts.input, len(res.Files), rows)
	return nil
}
