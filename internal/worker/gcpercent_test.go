package worker

import (
	"runtime/debug"
	"testing"
)

// The workers are told the server's own collector target, whatever set it.
func TestOwnGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, want := range []int{400, 100, 37, -1} {
		debug.SetGCPercent(want)
		if got := OwnGCPercent(); got != want {
			t.Errorf("after SetGCPercent(%d): %d", want, got)
		}
	}
}
