package worker

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azabudai/ctool/schema"
)

func TestFitting(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name     string
		sizes    []int64
		grow     int64
		room     int64
		most     int
		wantFit  int
		wantOver bool
	}{
		{"none known", nil, 0, 100 * mb, 12, 12, false},
		{"at the largest", []int64{60 * mb, 140 * mb}, 0, 450 * mb, 12, 3, false},
		{"started ones counted grown", []int64{45 * mb}, 69 * mb, 450 * mb, 12, 3, false},
		{"grown beyond the guess", []int64{45 * mb, 140 * mb}, 69 * mb, 450 * mb, 12, 3, false},
		{"over together", []int64{140 * mb, 140 * mb, 140 * mb, 140 * mb}, 0, 450 * mb, 12, 3, true},
		{"within most", []int64{10 * mb}, 0, 450 * mb, 4, 4, false},
		{"no room", []int64{10 * mb}, 0, 0, 12, 0, true},
		{"room taken by the server", []int64{10 * mb}, 0, -5 * mb, 12, 0, true},
	} {
		fit, over := fitting(c.sizes, c.grow, c.room, c.most)
		if fit != c.wantFit || over != c.wantOver {
			t.Errorf("%s: fitting = %d, %v; want %d, %v", c.name, fit, over, c.wantFit, c.wantOver)
		}
	}
}

func TestResident(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	if r := Resident(os.Getpid()); r < 1<<20 {
		t.Errorf("this process's resident set: %d bytes", r)
	}
	if r := Resident(1 << 30); r != 0 {
		t.Errorf("a process that does not exist: %d bytes", r)
	}
}

func TestHeldThreshold(t *testing.T) {
	ms := func(n int, d time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name  string
		times []time.Duration
		want  time.Duration
	}{
		{"quick calls", ms(64, 2), 8 * time.Millisecond},
		{"a few slow among them", append(ms(60, 2), ms(4, 200)...), 8 * time.Millisecond},
		{"a tenth slow", append(ms(56, 2), ms(8, 200)...), 800 * time.Millisecond},
		{"seconds under load", append(ms(32, 200), ms(32, 900)...), 3600 * time.Millisecond},
		{"one", ms(1, 30), 120 * time.Millisecond},
	} {
		if got := heldThreshold(c.times); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// memoryPool is a test pool whose workers may hold room() bytes, after a first call has had them read.
func memoryPool(t *testing.T, size, max int, room func(warm int64) int64) (*Pool, *logged) {
	t.Helper()
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	p, log := newTestPool(t, size, max, 200)
	warm := Resident(int(pidOf(t, p)))
	p.mu.Lock()
	p.cfg.Memory = func() int64 { return room(warm) }
	p.readAt = time.Time{}
	p.mu.Unlock()
	pidOf(t, p) // given back: a reading
	waitUntil(t, "a reading of the workers' memory", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return !p.readAt.IsZero()
	})
	return p, log
}

// With room for two workers, four calls that hold theirs run two at a time, not Active at once.
func TestPoolMemoryBoundsActive(t *testing.T) {
	p, log := memoryPool(t, 1, 12, func(warm int64) int64 { return warm*5/2 + warm/10 })
	p.cfg.Active, p.cfg.SpawnAfter = 4, time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Query(ctx, schema.Stores, "slow") }()
	}
	log.waitStarted(t, "slow", 2)
	waitUntil(t, "two calls waiting", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.waiters) == 2
	})
	time.Sleep(300 * time.Millisecond) // time enough for more workers to start, were they allowed
	if n := p.Running(); n != 2 {
		t.Errorf("%d workers running for four calls, want the two that fit", n)
	}
	cancel()
	wg.Wait()
}

// Workers a burst started are retired as soon as they hold more than the room, down to what fits.
func TestPoolRetiresOverMemory(t *testing.T) {
	var room atomic.Int64
	room.Store(1 << 40)
	p, log := memoryPool(t, 1, 3, func(int64) int64 { return room.Load() })
	p.cfg.Active, p.cfg.SpawnAfter = 3, time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Query(ctx, schema.Stores, "slow") }()
	}
	log.waitStarted(t, "slow", 3)
	if n := p.Running(); n != 3 {
		t.Fatalf("%d workers for three slow calls, want 3", n)
	}
	room.Store(1) // fits one, the Size kept warm
	cancel()
	wg.Wait()
	waitUntil(t, "one worker left", func() bool { return p.Running() == 1 })
	log.waitFor(t, "two retired events", func() bool { return log.count("retired") == 2 })
	pidOf(t, p) // and it serves
}

// stuckWithNoRoom runs eight stuck queries on a pool with no memory room, after known quick calls, and
// returns how many workers run once they have all started or the pool stops growing.
func stuckWithNoRoom(t *testing.T, known int) (running int, p *Pool) {
	p, log := memoryPool(t, 1, 12, func(int64) int64 { return 1 })
	p.cfg.Active, p.cfg.SpawnAfter = 4, 50*time.Millisecond
	for range known {
		pidOf(t, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	for range 8 {
		go func() { p.Query(ctx, schema.Stores, "stuck") }()
	}
	if known > 0 {
		log.waitStarted(t, "stuck", 8)
	} else {
		log.waitStarted(t, "stuck", 1)
		time.Sleep(500 * time.Millisecond) // ten times SpawnAfter: time enough to grow, were it allowed
	}
	return p.Running(), p
}

// Once the pool knows how long its queries take, stuck queries do not take the other calls' workers,
// whatever the memory: beside eight of them, the Size kept warm still serves.
func TestPoolMemoryKeepsOneBesideStuck(t *testing.T) {
	n, p := stuckWithNoRoom(t, heldWindow/4)
	if n > 9 {
		t.Errorf("%d workers running beside 8 stuck with no room, want at most 9", n)
	}
	pidOf(t, p)
}

// A fresh pool waits SlowAtFirst before it counts a worker slow; then the calls' holding times decide,
// never under SpawnAfter.
func TestSlowAfter(t *testing.T) {
	p := NewPool(Config{SpawnAfter: 100 * time.Millisecond, SlowAtFirst: 860 * time.Millisecond})
	for _, c := range []struct {
		heldSlow, want time.Duration
	}{{0, 860 * time.Millisecond}, {8 * time.Millisecond, 100 * time.Millisecond}, {2 * time.Second, 2 * time.Second}} {
		p.heldSlow = c.heldSlow
		if got := p.slowAfter(); got != c.want {
			t.Errorf("with the latest calls' threshold at %v: %v, want %v", c.heldSlow, got, c.want)
		}
	}
}
