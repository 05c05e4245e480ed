package worker

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// CommandName is the hidden command a worker runs: `ctool query-worker --db PATH`, speaking the
// protocol on stdin and stdout. Only ctool itself starts it.
const CommandName = "query-worker"

// Options are the worker command's flags. A worker kept for many calls (ctool mcp's) wants the last
// four; one started for a single query (ctool query's) would only pay for them.
type Options struct {
	DB      string // the main database file
	Threads int    // DuckDB's threads; 0 for one per core
	// WarmUp runs a first query before the greeting: a connection's first query costs more than the
	// rest, and a worker kept for many calls pays it before any call waits for it.
	WarmUp bool
	// LearnShapes keeps the query shapes the engine proves for the queries after (query.Engine's
	// shapes); without it the engine is ForOneQuery.
	LearnShapes bool
	// PurgeIdle has DuckDB's allocator hand the memory queries freed back to the system from a
	// background thread (database.WithBackgroundPurge): a worker may sit idle for hours after a burst.
	PurgeIdle bool
	// GCPercent is the Go collector's target (debug.SetGCPercent, as GOGC); 0 leaves the process's own.
	GCPercent int
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
	// Args[0] stays "ctool": the test binary serves as ctool by that name.
	args := []string{"ctool", CommandName, "--db=" + opts.DB, "--threads=" + strconv.Itoa(opts.Threads)}
	for _, f := range []struct {
		set  bool
		flag string
	}{{opts.WarmUp, "--warm-up"}, {opts.LearnShapes, "--learn-shapes"}, {opts.PurgeIdle, "--purge-idle"}} {
		if f.set {
			args = append(args, f.flag)
		}
	}
	if opts.GCPercent != 0 {
		args = append(args, "--gc-percent="+strconv.Itoa(opts.GCPercent))
	}
	return func() *exec.Cmd {
		return &exec.Cmd{Path: exe, Args: slices.Clone(args)}
	}, nil
}

// Main is the worker command's body: it opens the database, greets with its build and serves the
// queries read from in, each under its CPU cap, until in ends. The caller has capped the process's
// memory (LimitMemory). A database it cannot open is answered on out, as Refuse does.
func Main(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.GCPercent != 0 {
		debug.SetGCPercent(opts.GCPercent)
	}
	live, engine := openEngine(opts)
	defer live.Close()
	ctx, cancel := context.WithTimeout(ctx, query.WorkerStart)
	defer cancel()
	b, release, err := live.Acquire(ctx)
	if err != nil {
		return Refuse(out, err)
	}
	build := b.ID
	release()
	if opts.WarmUp {
		engine.Query(ctx, schema.Stores, "SELECT 1")
	}
	return Serve(in, out, build, func(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
		limitCPU(ctx)
		return engine.Query(ctx, d, sqlText)
	})
}

// openEngine is a worker's engine on its build, opened with the worker's settings.
func openEngine(opts Options) (*database.Live, *query.Engine) {
	dbOpts := []database.Option{database.WithThreads(opts.Threads)}
	if opts.PurgeIdle {
		dbOpts = append(dbOpts, database.WithBackgroundPurge())
	}
	live := database.NewLive(opts.DB, dbOpts...)
	engine := query.NewEngine(live)
	if !opts.LearnShapes {
		engine.ForOneQuery()
	}
	return live, engine
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

// OwnGCPercent is this process's collector target: GOGC, or what cmd/ctool set for a long-lived
// server (gc.go), for Options.GCPercent of workers that collect as their server does.
func OwnGCPercent() int {
	s := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return int(int64(s[0].Value.Uint64())) // GOGC=off reads as -1
}
