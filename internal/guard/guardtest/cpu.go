package guardtest

import (
	"syscall"
	"testing"
	"time"
)

// CPUPerOp reports the process's CPU time (user and system, every thread) per op as cpu-ns/op, for the
// benchmarks of a check and of a whole call: on a machine shared with other work, what a call costs
// stays readable when its wall time does not. Use it as defer CPUPerOp(b)().
func CPUPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
