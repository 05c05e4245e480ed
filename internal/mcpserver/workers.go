package mcpserver

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
)

// The worker policy of `ctool mcp`, chosen by measurements on a 2-core server (bench/results/memory.md,
// load.md and peer-scale-1000000.md hold the figures). One worker is kept warm. When calls queue, more
// are started in the background (a call takes whichever worker is free first) until two a core serve
// at once: on a busy 2-core machine four answered more calls than two, with a lower p99. A worker
// whose query has held it for workerSpawnAfter counts as slow (perhaps stuck), and as many may still
// serve beside the slow ones, up to twelve. A worker is stuck when its query runs past the call's
// --timeout and query.WorkerGrace (query/deadlines.go): the pool kills it, answers timeout and starts a
// fresh one. The workers beyond the warm one are retired after workerIdle idle. A longer wait than
// WorkerQueue allows is answered busy at once. Within all that, --memory bounds the workers' resident
// sets (worker.Config.Memory): on a large build each holds what its scans read, and twelve of them
// held 1.7–1.9 GB at 1,000,000 products.
const (
	Workers     = 1
	MaxWorkers  = 12
	WorkerQueue = 256
	workerIdle  = 15 * time.Second
	// workerSpawnAfter stays short: stuck queries arriving among many calls are found a few at a time
	// (a worker turns slow only this long after taking one), and with a longer one the calls behind
	// eight of them missed a short timeout on a loaded machine (TestMCPWorkers/stuck_among_200). A plain
	// query held this long behind busy cores also counts, so under load the pool may grow past four.
	workerSpawnAfter = 100 * time.Millisecond
	// WorkerThreads is DuckDB's thread count in each worker: the server's parallelism is its workers,
	// and one thread answers its small queries sooner than a pool that must be woken
	// (bench/results/mcp.md). `ctool query`'s child keeps one thread per core for its big scans.
	WorkerThreads = 1
)

// activeWorkers is how many workers serve at once beside the slow ones: two a core.
var activeWorkers = min(2*runtime.NumCPU(), MaxWorkers)

// DefaultMemory is --memory's default: 250 MiB a core, 500 MiB on two.
var DefaultMemory = int64(runtime.NumCPU()) * 250 << 20

// memoryShare is the room for one of n sites' workers when the server and its workers may hold budget
// bytes: an even share of what the server itself does not hold. nil for no bound.
func memoryShare(budget int64, n int) func() int64 {
	if budget <= 0 {
		return nil
	}
	self := os.Getpid()
	return func() int64 { return (budget - worker.Resident(self)) / int64(max(n, 1)) }
}

// startPool starts the query workers of `ctool mcp` on the database at path and waits until they have
// opened it. Their events go to log and metrics (either may be nil).
func startPool(ctx context.Context, path string, memory func() int64, log *eventLog, metrics *metricSet) (*worker.Pool, error) {
	// Kept for hours, each worker is warmed up, keeps the query shapes it proves, hands back what a
	// burst freed, and collects garbage as the server does.
	cmd, err := worker.Command(worker.Options{DB: path, Threads: WorkerThreads, WarmUp: true, LearnShapes: true,
		PurgeIdle: true, GCPercent: worker.OwnGCPercent()})
	if err != nil {
		return nil, err
	}
	pool := worker.NewPool(worker.Config{
		Command: cmd, Size: Workers, Active: activeWorkers, Max: MaxWorkers, Queue: WorkerQueue,
		Grace: query.WorkerGrace, Idle: workerIdle, SpawnAfter: workerSpawnAfter,
		Log: func(ev worker.Event) {
			log.worker(ev)
			metrics.workerEnded(ev.Worker)
		},
		Observe: metrics.workerQuery,
		Memory:  memory, Grow: fileSize(path),
	})
	if err := pool.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// fileSize is the size of the file at path, 0 if it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
