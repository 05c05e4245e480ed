package main

import (
	"github.com/azabudai/ctool/worker"
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
			&cli.BoolFlag{Name: "warm", Usage: "run a first query before serving (a worker kept for many calls)"}},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if err := e.capMemory(); err != nil {
				return worker.Refuse(e.stdout, err)
			}
			if c.Bool("warm") {
				tuneGC() // a pool's worker lives for many calls; ctool query's answers one and exits
			}
			return worker.Main(c.Context, e.stdin, e.stdout, worker.Options{DB: e.dbPath(c), Threads: c.Int("threads"), Warm: c.Bool("warm")})
		},
	}
}
