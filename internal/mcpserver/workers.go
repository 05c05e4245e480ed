package mcpserver

import (
	"context"
	rtmetrics "runtime/metrics"
	"time"

	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
)

// The worker policy of `ctool mcp`, chosen by measurements on a 2-core server (bench/results/memory.md
// and bench/results/load.md hold the figures). One worker is kept warm: a second would keep the server
// and its workers above the memory aim. When calls queue, more are started in the background (a call
// takes whichever worker is free first) until four serve at once: on a busy machine four answered more
// calls than two, with a lower p99. A worker whose query has held it for workerSpawnAfter counts as slow
// (perhaps stuck), and four may still serve beside the slow ones, up to twelve: eight stuck queries
// leave four for everyone else until their deadline and grace end them. A worker is stuck when its
// query runs past the call's --timeout and query.WorkerGrace (query/deadlines.go): the pool kills it,
// answers timeout and starts a fresh one. The workers beyond the warm one are retired after workerIdle
// idle. A longer wait than WorkerQueue allows is answered busy at once.
const (
	Workers       = 1
	activeWorkers = 4
	MaxWorkers    = 12
	WorkerQueue   = 256
	workerIdle    = 15 * time.Second
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

// startPool starts the query workers of `ctool mcp` on the database at path and waits until they have
// opened it. Their events go to log and metrics (either may be nil).
func startPool(ctx context.Context, path string, log *eventLog, metrics *metricSet) (*worker.Pool, error) {
	// Kept for hours, each worker is warmed up, keeps the query shapes it proves, hands back what a
	// burst freed, and collects garbage as the server does.
	cmd, err := worker.Command(worker.Options{DB: path, Threads: WorkerThreads, WarmUp: true, LearnShapes: true,
		PurgeIdle: true, GCPercent: gcPercent()})
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
	})
	if err := pool.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// gcPercent is this process's collector target: GOGC, or what cmd/ctool set for a long-lived server
// (gc.go).
func gcPercent() int {
	s := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return int(int64(s[0].Value.Uint64())) // GOGC=off reads as -1
}
