package worker

import (
	"context"
	"runtime"
	"syscall"
	"time"

	"github.com/azabudai/ctool/query"
)

// addressSpace caps a query process's virtual memory. DuckDB's memory_limit governs its buffer pool
// but not every allocation (huge strings and results), so this is the last line: an allocation past it
// fails and the query ends with an error instead of exhausting the machine. An idle query process maps
// about 1.8 GiB.
const addressSpace = 4 << 30

// LimitMemory caps the process's address space (RLIMIT_AS) before it opens a database: a worker's, and
// the ctool processes that run DuckDB themselves.
func LimitMemory() error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		return err
	}
	if lim.Cur <= addressSpace {
		return nil
	}
	lim.Cur = addressSpace
	return syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
}

// limitCPU caps the CPU time the worker may still use at what the query could use in its time, every
// core busy, plus the grace and a margin (query/deadlines.go): the supervisor kills a runaway worker
// long before, so this only matters if the supervisor is gone. Past it the kernel ends the process
// (SIGXCPU).
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
	allowed := (time.Until(deadline) + query.WorkerGrace + query.CPUMargin) * time.Duration(runtime.NumCPU())
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = min(uint64((used+allowed)/time.Second)+1, lim.Max)
	syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}
