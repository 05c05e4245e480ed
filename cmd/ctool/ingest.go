package main

import (
	"fmt"
	"path/filepath"

	"github.com/azabudai/ctool/ingest"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
)

type ingestOptions struct {
	input     string
	db        string
	maxErrors int
}

func newIngestCommand() *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "validate the CSV files and build the database from them, all or nothing",
		UsageText: "ctool ingest [--input DIR] [--db PATH]",
		Description: "Validates exactly as 'ctool validate'. On any problem it prints the report on stderr, exits 1 and\n" +
			"leaves the existing database untouched. Otherwise it builds new database files beside PATH and renames\n" +
			"them into place: readers of the old files keep working, and a build killed at any moment leaves the\n" +
			"old files intact. Profiles go to a separate file beside PATH that only 'ctool profile' opens." +
			exitStatusHelp("0  the database was built", "1  the data has problems or the build failed; nothing changed", "2  usage error"),
		Flags: []cli.Flag{
			inputFlag(),
			dbFlag(),
			&cli.IntFlag{Name: "max-errors", Value: 100, Usage: "report at most `N` problems"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("ingest takes no arguments, got %q", c.Args().First())
			}
			return runIngest(c, ingestOptions{input: c.String("input"), db: dbPath(c), maxErrors: c.Int("max-errors")})
		},
	}
}

func runIngest(c *cli.Context, opts ingestOptions) error {
	iopts := ingest.Options{MaxErrors: opts.maxErrors}
	if isTerminal(c.App.ErrWriter) {
		iopts.Progress = ingest.ProgressBar(c.App.ErrWriter)
	}
	res, sum, err := ingest.Ingest(c.Context, opts.input, opts.db, iopts)
	switch {
	case res == nil && err != nil:
		return usageError("%v", err)
	case !res.Report.Valid():
		res.Report.Write(c.App.ErrWriter, ingest.FormatText)
		return failed("%s in %s; the database was not changed", ingest.Problems(res.Report.Count), opts.input)
	case err != nil:
		return failed("ingest failed; the database was not changed: %v", err)
	}
	t := tablewriter.NewTable(c.App.Writer, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignLeft}}))
	t.Header("dataset", "file", "rows", "sha256")
	for _, f := range sum.Files {
		t.Append(f.Dataset.Name, f.Name, fmt.Sprint(f.Rows), f.SHA256[:12])
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "built %s (schema %d, profiles in %s) in %s\n", sum.DB, sum.SchemaVersion,
		filepath.Base(sum.ProfilesDB), sum.Elapsed.Round(1e6))
	return nil
}
