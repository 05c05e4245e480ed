package query

import "time"

// The time limits of one query, from the command line to the worker process that runs it, in one place
// because each is defined by the others.
//
// A query may run for its time limit (--timeout of `ctool query` and `ctool mcp`: DefaultTimeout, at
// most MaxTimeout). At its deadline the engine interrupts DuckDB, which notices only between steps:
//
//   - the worker's supervisor (worker.Pool) waits WorkerGrace more for the worker's answer; a worker
//     still silent then is stuck, and is killed and replaced (the call gets a timeout error);
//   - inside the worker, the engine waits StopGrace for DuckDB to let go of the query before it answers
//     without it. StopGrace is longer than WorkerGrace, so a worker whose DuckDB did not stop is killed
//     rather than given another query;
//   - the worker's CPU time is capped at its limit, WorkerGrace and CPUMargin on every core (RLIMIT_CPU),
//     which only matters if its supervisor is gone;
//   - an HTTP answer may take the limit, StopGrace and AnswerMargin to write.
//
// A worker may take WorkerStart to open its build and warm up before it greets its supervisor, as may
// the replacement the pool starts for one that ended.
//
// The label values ctool reads for its help and tool descriptions (trusted SQL) get DefaultTimeout.
const (
	DefaultTimeout = 5 * time.Second
	// MaxTimeout bounds --timeout: one agent call must not hold the machine for long.
	MaxTimeout   = time.Minute
	WorkerGrace  = time.Second
	StopGrace    = 2 * time.Second
	CPUMargin    = 5 * time.Second
	AnswerMargin = 5 * time.Second
	WorkerStart  = time.Minute
)
