package worker

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// CrashedHint is what to try after a query crashed the engine.
const CrashedHint = "simplify the query: shorter computed strings and patterns, less nesting, fewer rows before aggregating"

// Config says how a pool starts and bounds its workers.
type Config struct {
	// Command returns a new, unstarted worker process (the same binary's hidden worker command); the
	// pool sets its stdin, stdout and stderr.
	Command func() *exec.Cmd
	Size    int           // workers kept warm
	Max     int           // workers at once, busy or idle; more calls wait
	Queue   int           // calls that may wait for a worker; past it a call is answered busy at once
	Grace   time.Duration // how long a query may run past its deadline before its worker is killed
	// SpawnAfter is how long a call waits for a busy worker to come back before it starts another
	// (up to Max) once Size are running: on a small machine more processes than cores add memory and
	// no speed, while workers stuck on slow queries must not hold everyone else up for long. 0 starts
	// one at once.
	SpawnAfter time.Duration
	// Idle is how long a worker beyond the Size kept warm may sit idle before it is retired, so that
	// the memory of a burst's extra workers comes back; 0 keeps every worker.
	Idle time.Duration
	// Log gets one line per worker event (crashed, killed, out of memory, ...); never the SQL.
	Log func(Event)
	// Observe, when set, is told how each query that reached a worker ended: one of the Outcome
	// constants (for metrics).
	Observe func(outcome string)
}

// How a query that reached a worker ended.
const (
	OutcomeOK          = "ok"            // answered with rows
	OutcomeError       = "error"         // answered with an error (refused, SQL error, ...)
	OutcomeTimeout     = "timeout"       // stopped at its deadline, the worker kept
	OutcomeKilled      = "killed"        // still running after the grace, or a bad answer: the worker killed
	OutcomeCrashed     = "crashed"       // the worker died, or its engine failed
	OutcomeOutOfMemory = "out_of_memory" // the worker died of its memory cap
)

// Event is one thing that happened to a worker, for the log.
type Event struct {
	Worker string `json:"worker"` // what happened: started, crashed, out_of_memory, killed, engine_failed, exited, retired
	PID    int    `json:"pid"`
	Exit   string `json:"exit,omitempty"` // how the process ended, as the OS tells it
}

// Pool is the supervisor: it runs each query in a worker process and answers with the query's
// result or a *ctool.Error, whatever happens to the worker.
type Pool struct {
	cfg     Config
	slots   chan struct{} // one per busy worker
	waiting atomic.Int64

	mu     sync.Mutex
	idle   []*proc
	live   int // processes started and not yet reaped
	closed bool
	sweep  bool          // a retirement of idle workers is scheduled
	back   chan struct{} // closed when a worker is given back, for calls waiting for one; nil if none wait
	all    map[*proc]bool
}

// NewPool returns a pool; Start warms it.
func NewPool(cfg Config) *Pool {
	if cfg.Max < 1 {
		cfg.Max = 1
	}
	if cfg.Size > cfg.Max {
		cfg.Size = cfg.Max
	}
	if cfg.Log == nil {
		cfg.Log = func(Event) {}
	}
	if cfg.Observe == nil {
		cfg.Observe = func(string) {}
	}
	return &Pool{cfg: cfg, slots: make(chan struct{}, cfg.Max), all: map[*proc]bool{}}
}

// Start starts the warm workers and waits until they have opened the database; the first failure
// (no database, say) is returned as the worker reported it.
func (p *Pool) Start(ctx context.Context) error {
	errs := make(chan error, p.cfg.Size)
	for range p.cfg.Size {
		go func() {
			w, err := p.start(ctx)
			if err == nil {
				p.put(w)
			}
			errs <- err
		}()
	}
	var first error
	for range p.cfg.Size {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Close kills every worker and waits for them to exit.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var all []*proc
	for w := range p.all {
		all = append(all, w)
	}
	p.idle = nil
	p.mu.Unlock()
	for _, w := range all {
		w.kill()
		<-w.exited
	}
}

// Query runs one query in a worker, as query.Engine.Query would run it in this process.
func (p *Pool) Query(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
	if err := p.enter(ctx); err != nil {
		return nil, err
	}
	w, err := p.take(ctx)
	if err != nil {
		p.leave()
		return nil, err
	}
	w.seq++
	req := request{Seq: w.seq, Dataset: d.Name, SQL: []byte(sqlText)}
	if dl, ok := ctx.Deadline(); ok {
		req.Deadline = dl.UnixNano()
	}
	if err := w.conn.sendJSON(typeQuery, req); err != nil {
		err := p.lost(w)
		p.leave()
		return nil, err
	}
	select {
	case f, ok := <-w.replies:
		defer p.leave()
		if !ok {
			return nil, p.lost(w)
		}
		return p.answer(w, f, false)
	case <-ctx.Done():
	}
	// Answer now; the worker gets the grace to stop, and is killed if it does not.
	w.conn.send(typeCancel, binary.BigEndian.AppendUint64(nil, w.seq))
	go func() {
		defer p.leave()
		t := time.NewTimer(p.cfg.Grace)
		defer t.Stop()
		select {
		case f, ok := <-w.replies:
			if !ok {
				p.lost(w)
			} else {
				p.answer(w, f, true)
			}
		case <-t.C:
			w.kill()
			p.cfg.Observe(OutcomeKilled)
			p.reap(w, "killed")
		}
	}()
	return nil, query.Stopped(ctx)
}

// answer reads a worker's answer and gives the worker back, or retires it when it says it must go.
// stopped says the call was already answered as stopped (its deadline or its cancellation).
func (p *Pool) answer(w *proc, f frame, stopped bool) (*query.Result, error) {
	switch f.typ {
	case typeResult:
		seq, b, err := seqOf(f.payload)
		if err == nil && seq != w.seq {
			err = fmt.Errorf("worker: answer %d to query %d", seq, w.seq)
		}
		if err != nil {
			w.kill()
			p.cfg.Observe(OutcomeKilled)
			p.reap(w, "killed")
			return nil, err
		}
		p.put(w)
		if stopped {
			p.cfg.Observe(OutcomeTimeout)
		} else {
			p.cfg.Observe(OutcomeOK)
		}
		return query.DecodeResult(b)
	case typeError:
		var fl failure
		if err := json.Unmarshal(f.payload, &fl); err != nil || fl.Seq != w.seq {
			w.kill()
			p.cfg.Observe(OutcomeKilled)
			p.reap(w, "killed")
			return nil, fmt.Errorf("worker: bad error answer")
		}
		switch {
		case stopped || fl.Kind == string(ctool.KindTimeout):
			p.cfg.Observe(OutcomeTimeout)
		case fl.Kind == string(ctool.KindCrashed): // its engine failed: the worker goes
			p.cfg.Observe(OutcomeCrashed)
		default:
			p.cfg.Observe(OutcomeError)
		}
		if fl.Exit {
			go p.reap(w, "engine_failed")
		} else {
			p.put(w)
		}
		return nil, &ctool.Error{Kind: ctool.Kind(fl.Kind), Message: fl.Message, Hint: fl.Hint}
	}
	w.kill()
	p.cfg.Observe(OutcomeKilled)
	p.reap(w, "killed")
	return nil, fmt.Errorf("worker: unexpected frame %q", f.typ)
}

// lost explains a worker that died while it held a query: out of memory, or a crash.
func (p *Pool) lost(w *proc) error {
	w.kill() // if it is only its pipe that broke
	<-w.exited
	if w.outOfMemory() {
		p.cfg.Observe(OutcomeOutOfMemory)
		p.reap(w, "out_of_memory")
		return &ctool.Error{Kind: ctool.KindTooLarge, Hint: "select fewer rows or shorter values, and filter before aggregating",
			Message: "the query needed more memory than a query may use and was stopped"}
	}
	p.cfg.Observe(OutcomeCrashed)
	p.reap(w, "crashed")
	return &ctool.Error{Kind: ctool.KindCrashed, Hint: CrashedHint,
		Message: "the query crashed the query engine; it was not run to the end"}
}

// enter takes a slot for a busy worker, waiting within ctx while the queue has room.
func (p *Pool) enter(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	if p.waiting.Add(1) > int64(p.cfg.Queue) {
		p.waiting.Add(-1)
		return &ctool.Error{Kind: ctool.KindBusy, Hint: "retry in a few seconds",
			Message: fmt.Sprintf("every query worker is busy (%d) and %d calls are waiting already", p.cfg.Max, p.cfg.Queue)}
	}
	defer p.waiting.Add(-1)
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return query.Stopped(ctx)
	}
}

func (p *Pool) leave() { <-p.slots }

// Running is how many worker processes are started and not yet gone.
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// Waiting is how many calls wait for a worker.
func (p *Pool) Waiting() int { return int(p.waiting.Load()) }

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

// proc is one worker process.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	conn    *conn
	stdin   io.Closer
	replies chan frame    // the worker's frames; closed when its output ends
	exited  chan struct{} // closed once the process has been waited for
	stderr  *tail
	seq     uint64
	once    sync.Once
	// idleSince is when it was last given back to the idle list.
	idleSince time.Time
}

func spawn(cmd *exec.Cmd, onExit func(*proc)) (*proc, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &proc{cmd: cmd, stdin: in, conn: newConn(in), replies: make(chan frame, 1), exited: make(chan struct{}), stderr: &tail{}}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = cmd.Process.Pid
	go func() {
		r := bufio.NewReader(out)
		for {
			f, err := readFrame(r)
			if err != nil {
				break
			}
			w.replies <- f
		}
		close(w.replies)
		w.cmd.Wait()
		close(w.exited)
		onExit(w)
	}()
	return w, nil
}

// kill ends the process at once; closing its stdin alone would let a stuck query run on.
func (w *proc) kill() {
	w.once.Do(func() {
		w.stdin.Close()
		w.cmd.Process.Kill()
	})
}

// outOfMemory reports whether the Go runtime or an allocation in DuckDB said it ran out of memory.
func (w *proc) outOfMemory() bool {
	s := w.stderr.String()
	return strings.Contains(s, "out of memory") || strings.Contains(s, "cannot allocate memory") ||
		strings.Contains(s, "std::bad_alloc")
}

// tail keeps the first and the last few kilobytes a worker wrote on stderr: enough to tell a crash
// from running out of memory (the Go runtime says so before its goroutine dump), never logged.
type tail struct {
	mu   sync.Mutex
	head []byte
	b    []byte
}

const tailBytes = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(len(p), 4<<10-len(t.head)); n > 0 {
		t.head = append(t.head, p[:n]...)
	}
	t.b = append(t.b, p...)
	if len(t.b) > tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n…\n" + string(t.b)
}
