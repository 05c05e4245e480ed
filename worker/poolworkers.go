// The pool's workers: taking an idle one or starting one, giving it back, retiring the extra ones a
// burst started, and replacing the ones that are gone.

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/query"
)

// take returns an idle worker, or starts one: at once while fewer than Size are running, else once
// cfg.SpawnAfter has passed with none given back (the busy ones may be stuck).
func (p *Pool) take(ctx context.Context) (*proc, error) {
	var spawnAt time.Time
	for {
		p.mu.Lock()
		n := len(p.idle)
		if n == 0 {
			if p.cfg.SpawnAfter <= 0 || p.live < p.cfg.Size {
				p.mu.Unlock()
				return p.start(ctx)
			}
			if spawnAt.IsZero() {
				spawnAt = time.Now().Add(p.cfg.SpawnAfter)
			}
			wait := time.Until(spawnAt)
			if wait <= 0 {
				p.mu.Unlock()
				return p.start(ctx)
			}
			if p.back == nil {
				p.back = make(chan struct{})
			}
			back := p.back
			p.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-back:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, query.Stopped(ctx)
			}
			t.Stop()
			continue
		}
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
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

// put gives a worker back to the idle list.
func (p *Pool) put(w *proc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		w.kill()
		return
	}
	w.idleSince = time.Now()
	p.idle = append(p.idle, w)
	if p.back != nil { // wake the calls waiting for a worker
		close(p.back)
		p.back = nil
	}
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
	w, err := p.launch()
	if err != nil {
		return nil, err
	}
	return p.greeted(ctx, w)
}

// launch starts a worker process.
func (p *Pool) launch() (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("worker: pool closed")
	}
	p.live++
	p.mu.Unlock()
	w, err := spawn(p.cfg.Command(), p.exitedIdle)
	if err != nil {
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
		return nil, fmt.Errorf("start a query worker: %w", err)
	}
	p.mu.Lock()
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
			return nil, &ctool.Error{Kind: ctool.Kind(fl.Kind), Message: fl.Message, Hint: fl.Hint}
		}
		p.reap(w, "crashed")
		return nil, fmt.Errorf("a query worker failed to start (%s)", w.cmd.ProcessState)
	case <-ctx.Done():
		w.kill()
		go p.reap(w, "killed")
		return nil, query.Stopped(ctx)
	}
}
