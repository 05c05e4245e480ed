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
// load.md, peer-scale-1000000.md). One worker is kept warm; when calls queue, more start in the
// background until two a core serve at once. A worker whose query has held it for workerSpawnAfter
// (or slowAtFirst, then four times the latest calls' p90: worker/slow.go) counts as slow, perhaps
// stuck, and as many may still serve beside the slow ones, up to twelve. A query past the call's
// --timeout and query.WorkerGrace (query/deadlines.go) has its worker killed and replaced. Workers
// beyond the warm one retire after workerIdle idle; a longer wait than WorkerQueue allows is answered
// busy at once. --memory bounds the workers' resident sets (worker.Config.Memory): on a large build
// each holds what its scans read, and twelve held 1.7–1.9 GB at 1,000,000 products.
const (
	Workers     = 1
	MaxWorkers  = 12
	WorkerQueue = 256
	workerIdle  = 15 * time.Second
	// workerSpawnAfter stays short: stuck queries arriving among many calls are found a few at a time
	// (a worker turns slow only this long after taking one), and with a longer one the calls behind
	// eight of them missed a short timeout on a loaded machine (TestMCPWorkers/stuck_among_200).
	workerSpawnAfter = 100 * time.Millisecond
	// WorkerThreads is DuckDB's thread count in each worker: the server's parallelism is its workers,
	// and one thread answers its small queries sooner than a pool that must be woken
	// (bench/results/mcp.md). `ctool query`'s child keeps one thread per core for its big scans.
	WorkerThreads = 1
)

// activeWorkers serve at once beside the slow ones, two a core; DefaultMemory is 250 MiB a core.
var activeWorkers, DefaultMemory = min(2*runtime.NumCPU(), MaxWorkers), int64(runtime.NumCPU()) * 250 << 20

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
	size := fileSize(path)
	pool := worker.NewPool(worker.Config{
		Command: cmd, Size: Workers, Active: activeWorkers, Max: MaxWorkers, Queue: WorkerQueue,
		Grace: query.WorkerGrace, Idle: workerIdle, SpawnAfter: workerSpawnAfter,
		Log: func(ev worker.Event) {
			log.worker(ev)
			metrics.workerEnded(ev.Worker)
		},
		Observe: metrics.workerQuery,
		Memory:  memory, Grow: size * 3 / 2, SlowAtFirst: slowAtFirst(size),
	})
	if err := pool.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// fileSize is the size of the file at path, 0 if it cannot be read.
func fileSize(path string) (size int64) {
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	return size
}

// slowAtFirst is how long a fresh pool's first calls may hold a worker before it counts as slow:
// workerSpawnAfter for each 8 MiB of build, up to a second (800 ms at 1,000,000 products).
func slowAtFirst(size int64) time.Duration {
	return min(workerSpawnAfter*time.Duration(max(size>>23, 1)), time.Second)
}
