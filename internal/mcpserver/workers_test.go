package mcpserver

import (
	"runtime/debug"
	"testing"
)

// The workers are told the server's own collector target, whatever set it.
func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, want := range []int{400, 100, 37, -1} {
		debug.SetGCPercent(want)
		if got := gcPercent(); got != want {
			t.Errorf("after SetGCPercent(%d): %d", want, got)
		}
	}
}
