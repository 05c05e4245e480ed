//go:build cpuprofile

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

// A build with -tags cpuprofile writes a CPU profile of each ctool process (the server and its query
// workers alike) to $CTOOL_CPUPROFILE.<pid> for its first $CTOOL_CPUPROFILE_SECONDS (default 30):
// workers are killed, never exit, so the profile stops on a timer.
func init() {
	path := os.Getenv("CTOOL_CPUPROFILE")
	if path == "" {
		return
	}
	secs, err := strconv.Atoi(os.Getenv("CTOOL_CPUPROFILE_SECONDS"))
	if err != nil || secs <= 0 {
		secs = 30
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid()))
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return
	}
	go func() {
		time.Sleep(time.Duration(secs) * time.Second)
		pprof.StopCPUProfile()
		f.Close()
	}()
}
