package worker

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// CommandName is the hidden command a worker runs: `ctool query-worker --db PATH`, speaking the
// protocol on stdin and stdout. Only ctool itself starts it.
const CommandName = "query-worker"

// Options are the worker command's flags.
type Options struct {
	DB      string // the main database file
	Threads int    // DuckDB's threads; 0 for one per core
	Warm    bool   // run a first query before serving (a worker kept for many calls)
}

// Command returns the Config.Command of a pool whose workers are this very binary run with opts.
func Command(opts Options) (func() *exec.Cmd, error) {
	// /proc/self/exe still starts this very binary after an upgrade has replaced or removed its file;
	// the path os.Executable names would then be another version, or nothing.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	return func() *exec.Cmd {
		// Args[0] stays "ctool": the test binary serves as ctool by that name.
		return &exec.Cmd{Path: exe, Args: []string{"ctool", CommandName, "--db=" + opts.DB,
			"--threads=" + strconv.Itoa(opts.Threads), "--warm=" + strconv.FormatBool(opts.Warm)}}
	}, nil
}

// Main is the worker command's body: it opens the database, greets with its build and serves the
// queries read from in, each under its CPU cap, until in ends. The caller has capped the process's
// memory (LimitMemory). A database it cannot open is answered on out, as Refuse does.
func Main(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	dbOpts := []database.Option{database.WithThreads(opts.Threads)}
	if opts.Warm {
		// Kept for many calls, it would otherwise hold a burst's freed memory while it sits idle.
		dbOpts = append(dbOpts, database.WithBackgroundPurge())
	}
	live := database.NewLive(opts.DB, dbOpts...)
	defer live.Close()
	engine := query.NewEngine(live)
	if !opts.Warm {
		engine.ForOneQuery()
	}
	ctx, cancel := context.WithTimeout(ctx, query.WorkerStart)
	defer cancel()
	b, release, err := live.Acquire(ctx)
	if err != nil {
		return Refuse(out, err)
	}
	build := b.ID
	release()
	if opts.Warm {
		// The first query of a connection costs more than the rest; a worker of one call (ctool query)
		// would only pay it earlier.
		engine.Query(ctx, schema.Stores, "SELECT 1")
	}
	return Serve(in, out, build, func(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
		limitCPU(ctx)
		return engine.Query(ctx, d, sqlText)
	})
}

// QueryOnce runs one query in a worker process of its own, so that a query that crashes DuckDB or
// exhausts the memory is reported as an error of its kind rather than a Go crash dump (`ctool query`;
// its worker keeps DuckDB's thread per core for big scans).
func QueryOnce(ctx context.Context, path string, d *schema.Dataset, sqlText string) (*query.Result, error) {
	cmd, err := Command(Options{DB: path})
	if err != nil {
		return nil, err
	}
	pool := NewPool(Config{Command: cmd, Max: 1, Grace: query.WorkerGrace})
	defer pool.Close()
	return pool.queryFresh(ctx, d, sqlText)
}
