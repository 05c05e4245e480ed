package main

import (
	"fmt"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/ingest"
	"github.com/urfave/cli/v2"
)

func newValidateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check the CSV files in the input directory without building anything (for CI)",
		UsageText: "ctool validate [--input DIR] [--format text|json|github] [--max-errors N] [--max-file-size SIZE]",
		Description: "Checks every data file and reports every problem with its file, the line where the record starts,\n" +
			"the column, a rule word and what was expected. Rule words: missing-file, file, encoding, header, ragged,\n" +
			"required, type, format, enum, json, schema, unique, reference.\n" +
			"Only regular files are read: a link, FIFO, device or socket, or a file over --max-file-size, is a\n" +
			"'file' problem and nothing of it is read.\n" +
			"Formats: text (FILE:LINE: COLUMN: RULE: message), json ({\"valid\",\"error_count\",\"shown\",\"truncated\",\"errors\"}),\n" +
			"github (workflow annotations for the first 10, plain lines for the rest). Every format escapes what\n" +
			"it quotes: no control character from the data is printed raw." +
			exitStatus("the data is valid", ctool.KindInvalidData, ctool.KindUsage, ctool.KindIO),
		Flags: []cli.Flag{
			inputFlag(),
			formatFlag("report `FORMAT`: text, json or github", ingest.FormatText),
			&cli.IntFlag{Name: "max-errors", Value: 100, Usage: "report at most `N` problems (all are counted; 0 for no cap)"},
			maxFileSizeFlag(),
		},
		Action: func(c *cli.Context) error {
			input, format, maxErrors := c.String("input"), c.String("format"), c.Int("max-errors")
			if err := oneOf("format", format, ingest.FormatText, ingest.FormatJSON, ingest.FormatGitHub); err != nil {
				return err
			}
			if maxErrors < 0 {
				return usageError("--max-errors must be 0 or more")
			}
			err := noArgs(c)
			if err != nil {
				return err
			}
			opts := ingest.Options{MaxErrors: maxErrors}
			if opts.MaxFileSize, err = maxFileSize(c); err != nil {
				return err
			}
			if isTerminal(e.stderr) {
				opts.Progress = ingest.ProgressBar(e.stderr)
			}
			res, err := ingest.Validate(input, opts)
			if err != nil {
				return err
			}
			if err := res.Report.Write(e.stdout, format); err != nil {
				return err
			}
			if !res.Report.Valid() {
				return answered{ctool.Errorf(ctool.KindInvalidData, "%s in %s", ingest.Problems(res.Report.Count), input)}
			}
			rows := 0
			for _, f := range res.Files {
				rows += f.Rows
			}
			fmt.Fprintf(e.stderr, "ctool validate: %s is valid (%d files, %d rows)\n", input, len(res.Files), rows)
			return nil
		},
	}
}
