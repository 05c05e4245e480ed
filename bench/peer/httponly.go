// One server over HTTP under the scale queries: calls/s, latency, the peak of its summed resident sets
// and the most processes it ran at once. For trying a worker policy quickly; scale reports the same
// figures beside DBHub.

package main

import (
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

func httpMain(args []string) error {
	fs := flag.NewFlagSet("http", flag.ExitOnError)
	ctoolCmd := fs.String("ctool", "", "the ctool server's command line (--http ADDR is appended)")
	rounds := fs.Int("rounds", 1, "rounds, each with a fresh server")
	dur := fs.Duration("http", 10*time.Second, "how long each load runs (after a fifth of it untimed)")
	clients := fs.Int("clients", 32, "HTTP clients")
	fs.Parse(args)
	if *ctoolCmd == "" {
		usage()
	}
	sd := side{"ctool mcp", strings.Fields(*ctoolCmd), true}
	var seq atomic.Int64
	for r := 0; r < *rounds; r++ {
		h, err := startHTTP(sd)
		if err != nil {
			return err
		}
		ts, errs, elapsed, cpu, err := h.load(sd, scaleQueries, *clients, *dur, &seq)
		peak, most := h.sampler.Peaks()
		h.stop()
		if err != nil {
			return err
		}
		perCall := time.Duration(0)
		if len(ts) > 0 {
			perCall = cpu / time.Duration(len(ts))
		}
		fmt.Printf("round %d: %d clients, %.1f calls/s, p50 %s, p99 %s, %d failed, CPU %s a call, peak %d MB, at most %d processes\n",
			r+1, *clients, float64(len(ts))/elapsed.Seconds(), msf(float64(benchkit.Percentile(ts, 50))),
			msf(float64(benchkit.Percentile(ts, 99))), errs, perCall.Round(10*time.Microsecond), peak>>20, most)
	}
	return nil
}
