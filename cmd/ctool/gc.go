package main

import (
	"os"
	"runtime/debug"
)

// serviceGCPercent is the Go collector's target for the long-lived processes of ctool mcp (the server
// and its warm workers), unless GOGC says otherwise. Their live heaps are small (the server's about 10
// MB) and every call allocates afresh (the MCP SDK's JSON decoding most of all), so at Go's default of
// 100 the collector ran after every few calls: about a fifth of the server's CPU. At 400, bench-peer's
// HTTP load took 1.4–1.6 ms of CPU per call instead of 1.8–2.3 ms (server and workers together), and
// the idle workers still give their memory back (worker/process.go).
const serviceGCPercent = 400

// tuneGC sets serviceGCPercent for a long-lived process, leaving an operator's GOGC alone.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serviceGCPercent)
	}
}
