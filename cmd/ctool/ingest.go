package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
)

func newIngestCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "validate the CSV files and build the database from them, all or nothing",
		UsageText: "ctool ingest [--input DIR] [--db PATH] [--max-errors N] [--max-file-size SIZE] [--strict]",
		Description: "Validates exactly as 'ctool validate'. On any error it prints the report on stderr, exits 1 and\n" +
			"leaves the existing database untouched. Warnings are printed on stderr and the build goes on: a cell\n" +
			"that cannot be typed (a bad date, number, flag, JSON value, or hours text the hours rule cannot\n" +
			"read) stays as written and its typed value is unknown (NULL); 'ctool status' counts such cells.\n" +
			"--strict makes every warning an error. Otherwise it builds new database files beside PATH and renames\n" +
			"them into place: readers of the old files keep working, and a build killed at any moment leaves the\n" +
			"old files intact. Profiles go to a separate file beside PATH that only 'ctool profile' opens. A PATH\n" +
			"that is a symbolic link is refused: give the database file's own path." +
			exitStatus("the database was built", fault.KindInvalidData, fault.KindInternal, fault.KindUsage, fault.KindIO),
		Flags: []cli.Flag{
			inputFlag(),
			dbFlag(),
			&cli.IntFlag{Name: "max-errors", Value: 100, Usage: "report at most `N` problems"},
			maxFileSizeFlag(),
			strictFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opts := &ingestOptions{out: e.stdout, errOut: e.stderr, input: c.String("input"), db: e.dbPath(c),
				ingest: build.Options{MaxErrors: c.Int("max-errors"), Strict: c.Bool("strict")}}
			var err error
			if opts.ingest.MaxFileSize, err = maxFileSize(c); err != nil {
				return err
			}
			if textout.IsTerminal(e.stderr) {
				opts.ingest.Progress = validation.ProgressBar(e.stderr)
			}
			// SIGINT or SIGTERM cancels the build, which removes its temporary files before ctool exits; a
			// second signal ends ctool at once (the next ingest removes what that leaves).
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop()
			}()
			return missingInput(c, runIngest(ctx, opts))
		},
	}
}

// ingestOptions is a `ctool ingest` command line, checked.
type ingestOptions struct {
	out, errOut io.Writer // the summary; the report of invalid data
	input, db   string
	ingest      build.Options
}

func runIngest(ctx context.Context, opts *ingestOptions) error {
	sum, err := build.Run(ctx, opts.input, opts.db, opts.ingest)
	var invalid *validation.InvalidError
	if errors.As(err, &invalid) {
		invalid.Report.Write(opts.errOut, validation.FormatText)
	}
	if err != nil {
		return err
	}
	// Warnings do not stop a build; they are diagnostics, on stderr, as validate prints them.
	for _, p := range sum.Warnings {
		fmt.Fprintln(opts.errOut, p.String())
	}
	t := textout.Table(opts.out, tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignLeft}}))
	t.Header("dataset", "file", "rows", "sha256")
	for _, f := range sum.Files {
		t.Append(f.Dataset.Name, escape.Visible(f.Name), fmt.Sprint(f.Rows), f.SHA256[:12])
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "built %s (schema %d, profiles in %s) in %s\n", sum.DB, sum.SchemaVersion,
		filepath.Base(sum.ProfilesDB), sum.Elapsed.Round(1e6))
	return nil
}
