package mcpserver

import (
	"context"
	"time"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/worker"
)

// The worker policy of `ctool mcp`: two warm workers, one per core of a small server (each holds about
// 8 MB of its own beside the binary's pages it shares; bench/results/peer.md), up to twelve at once, so
// that eight stuck queries still leave four for everyone else until their deadline and grace end them.
// A worker is stuck when its query runs past the call's --timeout and query.WorkerGrace
// (query/deadlines.go): the pool kills it, answers timeout and starts a fresh one. Past the warm two, a
// call first waits WorkerSpawnAfter for a busy worker to come back (a burst on two cores gains nothing
// from more processes; bench/results/peer.md), and the extras a burst did start are retired after
// WorkerIdle idle. A longer wait than WorkerQueue allows is answered busy at once.
const (
	Workers          = 2
	MaxWorkers       = 12
	WorkerQueue      = 256
	WorkerIdle       = 15 * time.Second
	WorkerSpawnAfter = 100 * time.Millisecond
	// WorkerThreads is DuckDB's thread count in each worker: the server's parallelism is its workers,
	// and one thread answers its small queries sooner than a pool that must be woken
	// (bench/results/mcp.md). `ctool query`'s child keeps one thread per core for its big scans.
	WorkerThreads = 1
)

// StartPool starts the query workers of `ctool mcp` on the database at path and waits until they have
// opened it. Their events go to log and metrics (either may be nil).
func StartPool(ctx context.Context, path string, log *Log, metrics *Metrics) (*worker.Pool, error) {
	cmd, err := worker.Command(worker.Options{DB: path, Threads: WorkerThreads, Warm: true})
	if err != nil {
		return nil, err
	}
	pool := worker.NewPool(worker.Config{
		Command: cmd, Size: Workers, Max: MaxWorkers, Queue: WorkerQueue, Grace: query.WorkerGrace,
		Idle: WorkerIdle, SpawnAfter: WorkerSpawnAfter,
		Log: func(ev worker.Event) {
			log.Write(time.Now(), ev)
			metrics.WorkerEnded(ev.Worker)
		},
		Observe: metrics.WorkerQuery,
	})
	if err := pool.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}
