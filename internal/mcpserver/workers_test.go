package mcpserver

import (
	"os"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/worker"
)

// Each site's workers get an even share of what the server itself does not hold; no budget, no bound.
func TestMemoryShare(t *testing.T) {
	if memoryShare(0, 1) != nil {
		t.Error("--memory 0 bounds the workers")
	}
	self := worker.Resident(os.Getpid())
	if self == 0 {
		t.Skip("no /proc")
	}
	const budget = 1 << 30
	got := memoryShare(budget, 2)()
	// The server's resident set moves between the two readings; a mebibyte either way.
	if want := (budget - self) / 2; got < want-1<<20 || got > want+1<<20 {
		t.Errorf("a share of %d bytes with the server at %d, want about %d", got, self, want)
	}
}

func TestSlowAtFirst(t *testing.T) {
	for _, c := range []struct {
		size int64
		want time.Duration
	}{{0, workerSpawnAfter}, {5 << 20, workerSpawnAfter}, {69 << 20, 8 * workerSpawnAfter}, {1 << 30, time.Second}} {
		if got := slowAtFirst(c.size); got != c.want {
			t.Errorf("a build of %d bytes: %v, want %v", c.size, got, c.want)
		}
	}
}
