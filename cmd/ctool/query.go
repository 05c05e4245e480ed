package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

var queryKinds = []fault.Kind{fault.KindRefused, fault.KindSQL, fault.KindTimeout, fault.KindTooLarge, fault.KindUsage, fault.KindNoDatabase, fault.KindCrashed}

func queryFlags() []cli.Flag {
	return []cli.Flag{
		dbFlag(),
		formatFlag("output", render.FormatText, render.Formats...),
		&cli.DurationFlag{Name: "timeout", Value: query.DefaultTimeout, Usage: "stop the query after `D` (at most 1m)"},
	}
}

// queryUsage is the usage line after the dataset, its formats from render.Formats.
var queryUsage = "[--db PATH] [--format " + bar(render.Formats) + "] [--timeout D] [--] SQL|-"

// queryDatasets are the datasets a query may name.
func queryDatasets() []string {
	var names []string
	for _, d := range schema.Public() {
		names = append(names, d.Name)
	}
	return names
}

func newQueryCommand(e *env) *cli.Command {
	var subs []*cli.Command
	for _, d := range schema.Public() {
		subs = append(subs, newDatasetQueryCommand(e, d))
	}
	return &cli.Command{
		Name:      "query",
		Usage:     fmt.Sprintf("run one read-only SELECT (at most %d rows) on events, stores or products", schema.RowCap),
		UsageText: "ctool query <" + bar(queryDatasets()) + "> " + queryUsage,
		Description: "Runs exactly one SELECT statement through the guard: no writes, no settings, no files, no other\n" +
			"databases. Queries may join events, stores and products and their typed views. A query without\n" +
			fmt.Sprintf("LIMIT gets LIMIT %d and a larger LIMIT is lowered to %d; page with OFFSET. 'ctool query stores --help'\n", schema.RowCap, schema.RowCap) +
			"describes the stores tables and columns (likewise events, products)." + exitStatus("the query ran (zero rows is fine)", queryKinds...),
		Flags:       queryFlags(),
		Subcommands: subs,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("name the dataset: ctool query <%s> SQL", bar(queryDatasets()))
			}
			return unknownDataset(c.Args().Slice())
		},
	}
}

func newDatasetQueryCommand(e *env, d *schema.Dataset) *cli.Command {
	return &cli.Command{
		Name:        d.Name,
		Usage:       fmt.Sprintf("query %s (tool %s)", d.Name, d.Tool),
		UsageText:   "ctool query " + d.Name + " " + queryUsage,
		Description: schema.Help(d) + exitStatus("the query ran (zero rows is fine)", queryKinds...),
		Flags:       queryFlags(),
		Action: func(c *cli.Context) error {
			format, err := choiceValue(c, "format")
			if err != nil {
				return err
			}
			timeout, err := callTimeout(c)
			if err != nil {
				return err
			}
			if c.NArg() != 1 {
				return usageError("pass the SQL as one argument (quote it), or - to read it from stdin").WithHint(c.Command.HelpName + " --help")
			}
			return runQuery(c.Context, &queryOptions{io: e, db: e.dbPath(c), dataset: d, sql: c.Args().First(), timeout: timeout,
				show: render.Options{Format: format}})
		},
	}
}

// queryOptions is a `ctool query DATASET` command line, checked. Its parts go one way, each to the
// package that needs it: the database, the dataset, the SQL and the time limit to the worker that runs
// the query (the limit as the context's deadline), the time limit again to render's timeout hint, and
// how the answer is shown to render.
type queryOptions struct {
	io      *env // the streams, and whether stdout is a terminal
	db      string
	dataset *schema.Dataset
	sql     string // the SQL, or "-" to read it from stdin
	timeout time.Duration
	show    render.Options // the format; runQuery adds the terminal's width when stdout is one
}

func runQuery(ctx context.Context, opts *queryOptions) error {
	e := opts.io
	sqlText := opts.sql
	if sqlText == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return fault.Errorf(fault.KindIO, "read the SQL from stdin: %w", err)
		}
		sqlText = string(b)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	res, err := worker.QueryOnce(ctx, opts.db, opts.dataset, sqlText)
	if err != nil {
		return render.TimeoutHint(ctx, err, opts.timeout, query.MaxTimeout)
	}
	return e.showResult(res, opts.show)
}

// showResult writes res as show says: a text table for a terminal is fitted to its width and goes
// through the pager when it is taller than the screen, its hint on stderr once the pager is done;
// anything else goes straight to stdout, its remarks to stderr.
func (e *env) showResult(res *query.Result, show render.Options) error {
	t, ok := e.stdoutTerminal()
	if !ok || show.Format != render.FormatText {
		return render.Write(e.stdout, e.stderr, res, show)
	}
	show.Width = t.width
	var text, notes bytes.Buffer
	if err := render.Write(&text, &notes, res, show); err != nil {
		return err
	}
	if err := e.page(t, text.Bytes()); err != nil {
		return err
	}
	_, err := e.stderr.Write(notes.Bytes())
	return err
}
