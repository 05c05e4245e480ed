package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

// hardDeadlineGrace is how long past --timeout a query may run before the process ends itself:
// DuckDB notices a cancelled context only between steps, so the context alone is not a certain stop.
const hardDeadlineGrace = 2 * time.Second

// maxQueryTimeout bounds --timeout: one agent call must not hold the machine for long.
const maxQueryTimeout = time.Minute

// hardExit ends the process when a query overruns its deadline; tests replace it.
var hardExit = os.Exit

type queryOptions struct {
	dataset *schema.Dataset
	db      string
	format  string
	timeout time.Duration
	sql     string
}

func newQueryCommand() *cli.Command {
	var subs []*cli.Command
	for _, d := range schema.Public() {
		subs = append(subs, newDatasetQueryCommand(d))
	}
	return &cli.Command{
		Name:      "query",
		Usage:     "run one read-only SELECT (at most 10 rows) on events, stores or products",
		UsageText: "ctool query <events|stores|products> [--db PATH] [--format table|json|jsonl|csv|markdown] [--timeout D] SQL|-",
		Description: "Runs exactly one SELECT statement through the guard: no writes, no settings, no files, no other\n" +
			"databases. Queries may join events, stores and products and their typed views. A query without\n" +
			"LIMIT gets LIMIT 10 and a larger LIMIT is lowered to 10; page with OFFSET. 'ctool query stores --help'\n" +
			"describes the stores tables and columns (likewise events, products)." + queryExitStatus,
		Subcommands: subs,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("name the dataset: ctool query <events|stores|products> SQL")
			}
			return usageError("unknown dataset %q: use events, stores or products", c.Args().First())
		},
	}
}

var queryExitStatus = exitStatusHelp("0  the query ran (zero rows is fine)", "1  the query was refused or failed (the message says why)",
	"2  usage error", "3  the database is missing or unusable (run 'ctool ingest')")

func newDatasetQueryCommand(d *schema.Dataset) *cli.Command {
	return &cli.Command{
		Name:        d.Name,
		Usage:       fmt.Sprintf("query %s (tool %s)", d.Name, d.Tool),
		UsageText:   fmt.Sprintf("ctool query %s [--db PATH] [--format table|json|jsonl|csv|markdown] [--timeout D] SQL|-", d.Name),
		Description: schema.Help(d) + queryExitStatus,
		Flags: []cli.Flag{
			dbFlag(),
			formatFlag("output `FORMAT`: table, json, jsonl, csv or markdown", query.FormatTable),
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Second, Usage: "stop the query after `D`"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("pass the SQL as one argument (quote it), or - to read it from stdin")
			}
			opts := queryOptions{dataset: d, db: dbPath(c), format: c.String("format"), timeout: c.Duration("timeout"), sql: c.Args().First()}
			if opts.sql == "-" {
				b, err := io.ReadAll(c.App.Reader)
				if err != nil {
					return err
				}
				opts.sql = string(b)
			}
			return runQuery(c, opts)
		},
	}
}

func runQuery(c *cli.Context, opts queryOptions) error {
	if err := oneOf("format", opts.format, query.Formats...); err != nil {
		return err
	}
	if opts.timeout <= 0 || opts.timeout > maxQueryTimeout {
		return usageError("--timeout must be positive and at most %s", maxQueryTimeout)
	}
	if err := limitMemory(); err != nil {
		return fmt.Errorf("limit memory: %w", err)
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	ctx, cancel := context.WithTimeout(c.Context, opts.timeout)
	defer cancel()
	hard := time.AfterFunc(opts.timeout+hardDeadlineGrace, func() {
		reportQueryError(stdout, stderr, opts.format, fmt.Errorf("the query did not stop within %s and was ended; make it cheaper (filter first, avoid large cross joins)", opts.timeout))
		hardExit(exitFailed)
	})
	defer hard.Stop()

	db, err := query.Open(ctx, opts.db)
	if err != nil {
		return databaseError(err)
	}
	defer db.Close()
	sink, err := query.NewSink(opts.format, opts.dataset, stdout, stderr)
	if err != nil {
		return usageError("%v", err)
	}
	if err := db.Run(ctx, opts.dataset, opts.sql, sink); err != nil {
		var rejected *query.Rejection
		var failedSQL *query.SQLError
		if errors.As(err, &rejected) || errors.As(err, &failedSQL) {
			reportQueryError(stdout, stderr, opts.format, err)
			return quietExit(exitFailed)
		}
		return err
	}
	return nil
}

// reportQueryError writes a refused or failed query's message where the agent reads it: as
// {"error": ...} on stdout in the JSON formats, on stderr otherwise.
func reportQueryError(stdout, stderr io.Writer, format string, err error) {
	if format == query.FormatJSON || format == query.FormatJSONL {
		query.WriteError(stdout, err)
		return
	}
	fmt.Fprintf(stderr, "ctool: %v\n", err)
}
