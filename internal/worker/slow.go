// When a worker counts as slow: held longer than SpawnAfter, or than a few times what this pool's
// queries take, whichever is longer.

package worker

import (
	"slices"
	"time"
)

// heldWindow is how many of the latest calls' holding times set the slow threshold.
const heldWindow = 64

// slowFactor times the 90th percentile of the latest holding times is how long a worker may be held
// before it counts as slow. On a small build nearly every query takes a few milliseconds, and
// SpawnAfter decides; on a build of a million rows, a tenth of the calls scan for 100–300 ms under
// load, which a fixed threshold counted as stuck: the pool grew to Max for queries that only share the
// cores (bench/results/peer-scale-1000000.md).
const slowFactor = 4

// held counts how long w's call held it, and sets p.heldSlow again every heldWindow/4 calls. Called
// with p.mu held.
func (p *Pool) held(w *proc) {
	if w.busySince.IsZero() {
		return
	}
	p.heldTimes[p.heldNext%heldWindow] = time.Since(w.busySince)
	p.heldNext++
	if p.heldNext%(heldWindow/4) == 0 {
		p.heldSlow = heldThreshold(p.heldTimes[:min(p.heldNext, heldWindow)])
	}
}

// slowAfter is how long a query may hold its worker before the worker counts as slow. Called with
// p.mu held.
func (p *Pool) slowAfter() time.Duration {
	if p.heldSlow == 0 {
		return max(p.cfg.SpawnAfter, p.cfg.SlowAtFirst)
	}
	return max(p.cfg.SpawnAfter, p.heldSlow)
}

// heldThreshold is the slow threshold these holding times (not empty) call for: slowFactor times their
// 90th percentile. It has no bound: when the cores are so busy that the queries take seconds, a worker
// started beside them shares the same cores and adds only memory.
func heldThreshold(times []time.Duration) time.Duration {
	s := slices.Clone(times)
	slices.Sort(s)
	return slowFactor * s[len(s)*9/10]
}

// armSlow has the waiting calls look again when a worker taken at since turns slow, unless they are
// set to look sooner: each computed when to look from the workers busy as it queued, and a worker
// taken after that would turn slow unseen. With none waiting there is nothing to arm: a call that
// queues later sees the worker busy. Called with p.mu held.
func (p *Pool) armSlow(since time.Time) {
	if p.cfg.SpawnAfter <= 0 || len(p.waiters) == 0 {
		return
	}
	at := since.Add(p.slowAfter())
	if !p.slowCheck.IsZero() && !p.slowCheck.After(at) {
		return
	}
	p.slowCheck = at
	time.AfterFunc(time.Until(at), func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.slowCheck.Equal(at) {
			p.slowCheck = time.Time{}
		}
		p.wake()
	})
}
