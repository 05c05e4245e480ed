package main

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/mcpserver"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/worker"
	"github.com/urfave/cli/v2"
)

// workerCommand is the hidden command a query worker runs: `ctool query-worker --db PATH`, speaking the
// worker protocol on stdin and stdout. Only ctool itself starts it.
const workerCommand = "query-worker"

// Pool sizes of `ctool mcp`: two warm workers, one per core of a small server (each holds about 8 MB
// of its own beside the binary's pages it shares; bench/results/peer.md), up to twelve at once, so
// that eight stuck queries still leave four for everyone else until their deadline and grace end
// them. Past the warm two, a call first waits mcpSpawnAfter for a busy worker to come back (a burst
// on two cores gains nothing from more processes; bench/results/peer.md), and the extras a burst did
// start are retired after mcpIdle idle. A longer wait than the queue allows is answered busy at once.
const (
	mcpWorkers    = 2
	mcpMaxWorkers = 12
	mcpQueue      = 256
	mcpIdle       = 15 * time.Second
	mcpSpawnAfter = 100 * time.Millisecond
	// workerGrace is how long past its deadline a worker may take to stop its query before it is
	// killed; shorter than the engine's own grace, so a worker whose DuckDB did not stop is never
	// reused.
	workerGrace = time.Second
	// mcpWorkerThreads is DuckDB's thread count in each worker of `ctool mcp`: the server's parallelism
	// is its workers, and one thread answers its small queries sooner than a pool that must be woken
	// (bench/results/mcp.md). `ctool query`'s child keeps one thread per core for its big scans.
	mcpWorkerThreads = 1
)

func newWorkerCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:   workerCommand,
		Hidden: true,
		Usage:  "run agents' queries for a ctool process (internal)",
		Flags: []cli.Flag{dbFlag(),
			&cli.IntFlag{Name: "threads", Usage: "DuckDB threads; 0 for one per core"},
			&cli.BoolFlag{Name: "warm", Usage: "run a first query before serving (a worker kept for many calls)"}},
		Action: e.runWorker,
	}
}

func (e *env) runWorker(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if err := e.capMemory(); err != nil {
		return worker.Refuse(e.stdout, err)
	}
	live := database.NewLive(e.dbPath(c), database.WithThreads(c.Int("threads")))
	defer live.Close()
	engine := query.NewEngine(live)
	ctx, cancel := context.WithTimeout(c.Context, time.Minute)
	defer cancel()
	b, release, err := live.Acquire(ctx)
	if err != nil {
		return worker.Refuse(e.stdout, err)
	}
	build := b.ID
	release()
	if c.Bool("warm") {
		// The first query of a connection costs more than the rest; a worker of one call (ctool query)
		// would only pay it earlier.
		engine.Query(ctx, schema.Stores, "SELECT 1")
	}
	return worker.Serve(e.stdin, e.stdout, build, func(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
		limitCPU(ctx)
		return engine.Query(ctx, d, sqlText)
	})
}

// limitCPU caps the CPU time the worker may still use at what the query could use in its time, every
// core busy, plus the grace and a margin: the supervisor kills a runaway worker long before, so this
// only matters if the supervisor is gone. Past it the kernel ends the process (SIGXCPU).
func limitCPU(ctx context.Context) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	allowed := (time.Until(deadline) + workerGrace + 5*time.Second) * time.Duration(runtime.NumCPU())
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = min(uint64((used+allowed)/time.Second)+1, lim.Max)
	syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}

// newPool returns a pool of query workers on the database at path, each a child process of this
// binary that opens it read-only with DuckDB on threads threads (0: one per core).
func newPool(path string, size, max, queue, threads int, log *mcpserver.Log, metrics *mcpserver.Metrics) (*worker.Pool, error) {
	// /proc/self/exe still starts this very binary after an upgrade has replaced or removed its file;
	// the path os.Executable names would then be another version, or nothing.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	cfg := worker.Config{
		Command: func() *exec.Cmd {
			// Args[0] stays "ctool": the test binary serves as ctool by that name.
			return &exec.Cmd{Path: exe, Args: []string{"ctool", workerCommand, "--db=" + path, "--threads=" + strconv.Itoa(threads),
				"--warm=" + strconv.FormatBool(size > 0)}}
		},
		Size: size, Max: max, Queue: queue, Grace: workerGrace,
	}
	if size > 0 { // a kept pool; a one-call pool's worker ends with its process
		cfg.Idle, cfg.SpawnAfter = mcpIdle, mcpSpawnAfter
	}
	if log != nil {
		cfg.Log = func(ev worker.Event) {
			log.Write(time.Now(), ev)
			metrics.WorkerEnded(ev.Worker)
		}
		cfg.Observe = metrics.WorkerQuery
	}
	return worker.NewPool(cfg), nil
}

// startPool starts the query workers of `ctool mcp` and waits until they have opened the database.
func startPool(ctx context.Context, path string, log *mcpserver.Log, metrics *mcpserver.Metrics) (*worker.Pool, error) {
	pool, err := newPool(path, mcpWorkers, mcpMaxWorkers, mcpQueue, mcpWorkerThreads, log, metrics)
	if err != nil {
		return nil, err
	}
	if err := pool.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// queryInChild runs one query of `ctool query` in a worker process, so that a query that crashes
// DuckDB or exhausts the memory is reported as an error of its kind rather than a Go crash dump.
func queryInChild(ctx context.Context, path string, d *schema.Dataset, sqlText string) (*query.Result, error) {
	pool, err := newPool(path, 0, 1, 0, 0, nil, nil)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	return pool.Query(ctx, d, sqlText)
}
