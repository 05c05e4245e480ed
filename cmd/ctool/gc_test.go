package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	tuneGC()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set, the collector's target became %d", got)
	}
	t.Setenv("GOGC", "")
	// An empty GOGC is still the operator's: only an unset one is ours to choose.
	tuneGC()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC empty, the collector's target became %d", got)
	}
	os.Unsetenv("GOGC") // t.Setenv restores it
	tuneGC()
	if got := debug.SetGCPercent(100); got != serviceGCPercent {
		t.Errorf("with GOGC unset, the collector's target is %d, want %d", got, serviceGCPercent)
	}
}
