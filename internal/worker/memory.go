// The workers' resident memory, read from /proc, which bounds how many run (Config.Memory).

package worker

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// memoryEvery is how often the workers' resident sets are read again, as they are given back: each
// reading opens one small /proc file per worker, so a reading per call would cost quick calls.
const memoryEvery = 50 * time.Millisecond

// Resident is the resident set of process pid in bytes (VmRSS: its own pages and the shared ones it
// maps, which the binary's code makes alike in every worker), 0 when it cannot be read (the process
// is gone, or this is not Linux).
func Resident(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// readMemory reads the workers' resident sets, unless a reading is under way, or later when the last
// is younger than memoryEvery; it sets how many workers fit (p.fit) and whether they hold more than
// they may (p.over), and retires idle workers that do not fit. Only a pool with Config.Memory reads.
func (p *Pool) readMemory() {
	p.mu.Lock()
	if p.reading || p.closed {
		p.mu.Unlock()
		return
	}
	if wait := memoryEvery - time.Since(p.readAt); wait > 0 {
		// Read later, so that the last of a burst of workers given back is read too.
		if !p.readDue {
			p.readDue = true
			time.AfterFunc(wait, func() {
				p.mu.Lock()
				p.readDue = false
				p.mu.Unlock()
				p.readMemory()
			})
		}
		p.mu.Unlock()
		return
	}
	p.reading = true
	pids := make([]int, 0, len(p.all))
	for w := range p.all {
		pids = append(pids, w.pid)
	}
	p.mu.Unlock()

	sizes := make([]int64, 0, len(pids))
	for _, pid := range pids {
		if r := Resident(pid); r > 0 {
			sizes = append(sizes, r)
		}
	}
	room := p.cfg.Memory()

	p.mu.Lock()
	p.reading, p.readAt = false, time.Now()
	p.fit, p.over = fitting(sizes, p.cfg.Grow, room, p.cfg.Max)
	// Over, the idle workers beyond what fits go, the longest idle first; under, a call waiting for
	// room may start one now.
	for len(p.idle) > 0 && p.overBound(p.readAt) {
		w := p.idle[0]
		p.idle = p.idle[1:]
		p.retireOver(w)
	}
	if !p.over {
		p.wake()
	}
	p.mu.Unlock()
}

// retireOver ends worker w, which is not busy, because the workers hold more memory than they may;
// until it is reaped it counts in p.leaving, so that the workers given back meanwhile see it gone.
// Called with p.mu held.
func (p *Pool) retireOver(w *proc) {
	p.leaving++
	w.kill()
	go func() {
		p.reap(w, "retired")
		p.mu.Lock()
		p.leaving--
		p.mu.Unlock()
	}()
}

// keep is how many workers the memory lets serve: what fits, never fewer than Size and one. Called
// with p.mu held.
func (p *Pool) keep() int { return max(p.fit, p.cfg.Size, 1) }

// overBound reports whether the workers hold more memory than they may and more of them run than
// may now (allowed: those beside slow ones count), so that one idle or given back should go. Called
// with p.mu held.
func (p *Pool) overBound(now time.Time) bool {
	if !p.over {
		return false
	}
	n, _ := p.allowed(now)
	return p.live-p.leaving > n
}

// fitting is how many workers fit in room, within most, and whether the workers of these sizes hold
// more than room together; with no size known, most and false. Each is counted at the size of the
// largest, or of the smallest grown by grow if that is more: a worker grows to what its scans read,
// and one just started has yet to.
func fitting(sizes []int64, grow, room int64, most int) (fit int, over bool) {
	if len(sizes) == 0 {
		return most, false
	}
	sum, smallest, largest := int64(0), sizes[0], sizes[0]
	for _, s := range sizes {
		sum += s
		smallest, largest = min(smallest, s), max(largest, s)
	}
	if room <= 0 {
		return 0, true
	}
	return int(min(room/max(largest, smallest+grow, 1), int64(most))), sum > room
}
