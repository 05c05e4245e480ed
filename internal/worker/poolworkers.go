// The pool's workers: taking an idle one or starting one, giving it back, retiring the extra ones a
// burst started, and replacing the ones that are gone.

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
)

// take returns an idle worker, or starts one: the call waits for it while none is running or fewer
// than Size are, and when cfg.SpawnAfter is 0. Otherwise a worker is started in the background while
// fewer than allowed are running, and the call joins the queue of waiting calls (p.waiters) until a
// worker, the new one or one given back, is free for it (mayTake).
func (p *Pool) take(ctx context.Context) (*proc, error) {
	var me *waiter // in p.waiters once this call waits
	for {
		p.mu.Lock()
		if n := len(p.idle); n > 0 && p.mayTake(me, time.Now()) {
			w := p.idle[n-1]
			p.idle = p.idle[:n-1]
			w.busySince = time.Now()
			if me != nil {
				p.leaveQueue(me) // and another idle worker, if any, goes to the next call
				me = nil
			}
			p.armSlow(w.busySince)
			p.mu.Unlock()
			select {
			case <-w.exited:
				// Killed from outside while idle.
				go p.reap(w, "exited")
				continue
			case <-w.replies:
				// A worker says nothing unasked; one that does, or whose output ended, goes.
				w.kill()
				go p.reap(w, "exited")
				continue
			default:
			}
			return w, nil
		}
		if me == nil && (p.cfg.SpawnAfter <= 0 || p.live == 0 || p.live < p.cfg.Size) {
			p.mu.Unlock()
			w, err := p.start(ctx)
			if err == nil {
				p.mu.Lock()
				w.busySince = time.Now()
				p.armSlow(w.busySince)
				p.mu.Unlock()
			}
			return w, err
		}
		now := time.Now()
		allowed, recheck := p.allowed(now)
		if p.live < allowed && !now.Before(p.noStartUntil) && p.countLocked() == nil {
			go p.startIdle()
		} else if now.Before(p.noStartUntil) && (recheck.IsZero() || p.noStartUntil.Before(recheck)) {
			recheck = p.noStartUntil
		}
		if me == nil {
			me = &waiter{turn: make(chan struct{}, 1), since: time.Now()}
			p.waiters = append(p.waiters, me)
		}
		p.mu.Unlock()
		var timer *time.Timer
		var due <-chan time.Time
		if !recheck.IsZero() {
			timer = time.NewTimer(time.Until(recheck))
			due = timer.C
		}
		select {
		case <-me.turn:
		case <-due:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			p.mu.Lock()
			p.leaveQueue(me)
			p.mu.Unlock()
			return nil, query.Stopped(ctx)
		}
	}
}

// waiter is a call waiting for a worker since since; turn says it should look again.
type waiter struct {
	turn  chan struct{}
	since time.Time
}

// starveAfter is how long the first waiting call may wait before an idle worker is kept for it alone.
// Until then a call that has just come may take one first: it is running already, while the waiting
// call has yet to be scheduled, and on a busy machine that wait left the worker idle (32 HTTP clients:
// about a tenth fewer calls a second when every worker went strictly in turn).
const starveAfter = 20 * time.Millisecond

// mayTake reports whether the call me (nil if it has not waited) may take an idle worker now. While
// the pool may still grow (a burst of calls, some of them slow), every call may: a quick call must not
// wait behind slow ones for workers that are still starting. Once it may not, the first waiting call
// may, and one that has just come while the first has waited less than starveAfter. Called with p.mu
// held.
func (p *Pool) mayTake(me *waiter, now time.Time) bool {
	if len(p.waiters) == 0 || p.waiters[0] == me || p.growing(now) {
		return true
	}
	return me == nil && now.Sub(p.waiters[0].since) < starveAfter
}

// growing reports whether more workers may start now. Called with p.mu held.
func (p *Pool) growing(now time.Time) bool {
	allowed, _ := p.allowed(now)
	return p.live < allowed
}

func (w *waiter) signal() {
	select {
	case w.turn <- struct{}{}:
	default: // it has one to read already
	}
}

// signalFirst tells the first waiting call that a worker is idle, if one is; every waiting call while
// the pool may still grow (see mayTake). Called with p.mu held.
func (p *Pool) signalFirst() {
	if len(p.idle) == 0 || len(p.waiters) == 0 {
		return
	}
	if p.growing(time.Now()) {
		p.wake()
		return
	}
	p.waiters[0].signal()
}

// leaveQueue takes a call that stops waiting out of the queue; an idle worker meant for it goes to the
// next. Called with p.mu held.
func (p *Pool) leaveQueue(me *waiter) {
	for i, w := range p.waiters {
		if w == me {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			break
		}
	}
	p.signalFirst()
}

// allowed is how many workers may run now: with k of them slow (held longer than p.slowAfter() by one
// query), k+Active, within Max, and Active within what the memory holds (never fewer than Size).
// recheck is when the next busy worker turns slow (zero if none will). Called with p.mu held.
func (p *Pool) allowed(now time.Time) (n int, recheck time.Time) {
	slow := 0
	for w := range p.all {
		if w.busySince.IsZero() {
			continue
		}
		if at := w.busySince.Add(p.slowAfter()); !now.Before(at) {
			slow++
		} else if recheck.IsZero() || at.Before(recheck) {
			recheck = at
		}
	}
	active := p.cfg.Active
	if p.cfg.Memory != nil {
		active = min(active, p.keep())
	}
	return min(slow+active, p.cfg.Max), recheck
}

// startIdle starts a worker the caller has counted in p.live and p.starting, and gives it to the
// idle list, waking the calls that wait; after a failure the next start waits cfg.SpawnAfter.
func (p *Pool) startIdle() {
	ctx, cancel := context.WithTimeout(context.Background(), query.WorkerStart)
	defer cancel()
	w, err := p.startCounted(ctx)
	if err == nil {
		p.put(w)
		return
	}
	p.mu.Lock()
	p.noStartUntil = time.Now().Add(p.cfg.SpawnAfter)
	p.wake()
	p.mu.Unlock()
}

// wake tells every waiting call to look again: a start failed or a worker is gone, so each may
// start one. Called with p.mu held.
func (p *Pool) wake() {
	for _, w := range p.waiters {
		w.signal()
	}
}

// exitedIdle reaps a worker that exited while idle (killed from outside, say), so that a replacement
// is started at once rather than when a call finds it gone.
func (p *Pool) exitedIdle(w *proc) {
	p.mu.Lock()
	found := false
	for i, iw := range p.idle {
		if iw == w {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			found = true
			break
		}
	}
	p.mu.Unlock()
	if found {
		p.reap(w, "exited")
	}
}

// put gives a worker back to the idle list, or retires it while the workers hold more memory than
// they may.
func (p *Pool) put(w *proc) { p.giveBack(w, false) }

// putAnswered gives back a worker whose query was answered within its deadline, and counts how long
// the call held it (slow.go): a stopped query's time would tell how long the deadline is, not the
// queries.
func (p *Pool) putAnswered(w *proc) { p.giveBack(w, true) }

func (p *Pool) giveBack(w *proc, answered bool) {
	if p.cfg.Memory != nil {
		defer func() { go p.readMemory() }()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if answered {
		p.held(w)
	}
	if p.closed {
		w.kill()
		return
	}
	now := time.Now()
	if p.overBound(now) {
		w.busySince = time.Time{}
		p.retireOver(w)
		return
	}
	w.idleSince = now
	w.busySince = time.Time{}
	p.idle = append(p.idle, w)
	p.signalFirst()
	if p.cfg.Idle > 0 && p.live > p.cfg.Size && !p.sweep {
		p.sweep = true
		time.AfterFunc(p.cfg.Idle, p.retireIdle)
	}
}

// retireIdle ends the workers beyond Size that have been idle for cfg.Idle, the longest idle first
// (the front of the idle list: calls take from its end), and looks again later while more than Size
// are left.
func (p *Pool) retireIdle() {
	p.mu.Lock()
	var old []*proc
	for len(p.idle) > 0 && p.live-len(old) > p.cfg.Size && time.Since(p.idle[0].idleSince) >= p.cfg.Idle {
		old = append(old, p.idle[0])
		p.idle = p.idle[1:]
	}
	p.sweep = !p.closed && p.live-len(old) > p.cfg.Size
	if p.sweep {
		// Look again when the longest idle is due, or after Idle if none is idle.
		next := p.cfg.Idle
		if len(p.idle) > 0 {
			next = max(time.Until(p.idle[0].idleSince.Add(p.cfg.Idle)), p.cfg.Idle/10)
		}
		time.AfterFunc(next, p.retireIdle)
	}
	p.mu.Unlock()
	for _, w := range old {
		w.kill()
		go p.reap(w, "retired")
	}
}

// reap waits for a worker that is gone or going, logs why, and starts a replacement if fewer than
// Size are left.
func (p *Pool) reap(w *proc, why string) {
	<-w.exited
	p.cfg.Log(Event{Worker: why, PID: w.pid, Exit: w.cmd.ProcessState.String()})
	p.mu.Lock()
	delete(p.all, w)
	p.live--
	p.wake() // a call waiting while Max ran may start one now
	refill := !p.closed && p.live < p.cfg.Size
	p.mu.Unlock()
	if refill {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), query.WorkerStart)
			defer cancel()
			if nw, err := p.start(ctx); err == nil {
				p.put(nw)
			}
		}()
	}
}

// start starts a worker and waits for its greeting.
func (p *Pool) start(ctx context.Context) (*proc, error) {
	if err := p.count(); err != nil {
		return nil, err
	}
	return p.startCounted(ctx)
}

// startCounted starts a worker already counted in p.live and p.starting, and waits for its greeting.
func (p *Pool) startCounted(ctx context.Context) (*proc, error) {
	w, err := p.spawnCounted()
	if err != nil {
		return nil, err
	}
	return p.greeted(ctx, w)
}

// launch starts a worker process without waiting for its greeting.
func (p *Pool) launch() (*proc, error) {
	if err := p.count(); err != nil {
		return nil, err
	}
	return p.spawnCounted()
}

// count counts a worker about to start in p.live and in p.starting, unless the pool is closed.
func (p *Pool) count() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.countLocked()
}

// countLocked is count with p.mu held.
func (p *Pool) countLocked() error {
	if p.closed {
		return errors.New("worker: pool closed")
	}
	p.live++
	p.starting.Add(1)
	return nil
}

// spawnCounted starts the process of a worker already counted; one that finds the pool closed by
// then is stopped at once.
func (p *Pool) spawnCounted() (*proc, error) {
	defer p.starting.Done()
	w, err := spawn(p.cfg.Command(), p.exitedIdle)
	if err != nil {
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
		return nil, fmt.Errorf("start a query worker: %w", err)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.kill()
		go func() {
			for range w.replies { // its greeting, if it came, so that the reader can finish
			}
		}()
		<-w.exited
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
		return nil, errors.New("worker: pool closed")
	}
	p.all[w] = true
	p.mu.Unlock()
	return w, nil
}

// greeted waits for w's greeting: it has opened the database, or says why it could not.
func (p *Pool) greeted(ctx context.Context, w *proc) (*proc, error) {
	select {
	case f, ok := <-w.replies:
		if ok && f.typ == typeHello {
			return w, nil
		}
		w.kill()
		var fl failure
		if ok && f.typ == typeError && json.Unmarshal(f.payload, &fl) == nil {
			go p.reap(w, "exited")
			return nil, &fault.Error{Kind: fault.Kind(fl.Kind), Message: fl.Message, Hint: fl.Hint}
		}
		p.reap(w, "crashed")
		return nil, fmt.Errorf("a query worker failed to start (%s)", w.cmd.ProcessState)
	case <-ctx.Done():
		w.kill()
		go p.reap(w, "killed")
		return nil, query.Stopped(ctx)
	}
}
