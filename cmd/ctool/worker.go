package main

import (
	"github.com/azabudai/ctool/internal/worker"
	"github.com/urfave/cli/v2"
)

// newWorkerCommand is the hidden command a query worker runs (worker.Main); only ctool itself starts it.
func newWorkerCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:   worker.CommandName,
		Hidden: true,
		Usage:  "run agents' queries for a ctool process (internal)",
		Flags: []cli.Flag{dbFlag(),
			&cli.IntFlag{Name: "threads", Usage: "DuckDB threads; 0 for one per core"},
			&cli.BoolFlag{Name: "warm-up", Usage: "run a first query before greeting"},
			&cli.BoolFlag{Name: "learn-shapes", Usage: "keep the query shapes the engine proves, for the queries after"},
			&cli.BoolFlag{Name: "purge-idle", Usage: "have DuckDB hand freed memory back while the worker sits idle"},
			&cli.IntFlag{Name: "gc-percent", Usage: "the Go collector's target `N`, as GOGC=N (0: the process's own)"},
			// Earlier versions drove all four with one flag; bench/query-cli.sh still passes it to them.
			&cli.BoolFlag{Name: "warm", Usage: "a worker kept for many calls: --warm-up --learn-shapes --purge-idle and ctool mcp's collector target (an alias)"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if err := e.capMemory(); err != nil {
				return worker.Refuse(e.stdout, err)
			}
			opts := worker.Options{DB: e.dbPath(c), Threads: c.Int("threads"), WarmUp: c.Bool("warm-up"),
				LearnShapes: c.Bool("learn-shapes"), PurgeIdle: c.Bool("purge-idle"), GCPercent: c.Int("gc-percent")}
			if c.Bool("warm") {
				opts.WarmUp, opts.LearnShapes, opts.PurgeIdle = true, true, true
				tuneGC()
			}
			return worker.Main(c.Context, e.stdin, e.stdout, opts)
		},
	}
}
