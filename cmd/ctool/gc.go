package main

import (
	"os"
	"runtime/debug"
)

// serviceGCPercent is the Go collector's target for the long-lived processes of ctool mcp (the server
// and its warm workers), unless GOGC says otherwise. Their live heaps are small and every call
// allocates afresh (the MCP SDK's JSON decoding most of all), so at Go's default the collector ran
// after every few calls and took a large share of the server's CPU (the figures are in
// bench/results/history.md); the idle workers still give their memory back (worker/process.go).
const serviceGCPercent = 400

// tuneGC sets serviceGCPercent for a long-lived process, leaving an operator's GOGC alone.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serviceGCPercent)
	}
}
