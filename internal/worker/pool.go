package worker

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/internal/fault"
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
	// Active is how many workers may serve calls at once beside the slow ones (at least Size and 1):
	// with k slow, a call that finds none idle has one started while fewer than k+Active run, within
	// Max, and otherwise waits for one to come back. A queue of quick calls thus runs on Active
	// workers, however long it is: on a small machine more processes add memory, not speed.
	Active int
	// SpawnAfter is how long a query may hold its worker before the worker counts as slow (perhaps
	// stuck), or slowFactor times what the latest calls held theirs, if that is longer (slow.go). 0
	// starts a worker at once for any call that finds none idle, up to Max.
	SpawnAfter time.Duration
	// Idle is how long a worker beyond the Size kept warm may sit idle before it is retired, so that
	// the memory of a burst's extra workers comes back; 0 keeps every worker.
	Idle time.Duration
	// Log gets one line per worker event (crashed, killed, out of memory, ...); never the SQL.
	Log func(Event)
	// Observe, when set, is told how each query that reached a worker ended: one of the Outcome
	// constants (for metrics).
	Observe func(outcome string)
	// Memory, when set, is how much resident memory the workers may hold together now (a server's
	// budget less what the server holds). Their resident sets are read as workers are given back (at
	// most every memoryEvery); then of the Active workers only as many start as fit at the size of the
	// largest (or Grow), never fewer than Size, and a worker given back while they hold more is
	// retired rather than kept. The workers started beside slow ones are not bounded by it: a stuck
	// query must not take the others' workers. Resident sets are Linux's (/proc); elsewhere only Max
	// bounds the workers.
	Memory func() int64
	// Grow is how much a worker is expected to grow from its size at start: on a large build, about
	// the file DuckDB's buffer pool caches as queries read it, and the memory to read it. With Memory,
	// a worker counts at least its size at start and this, before any has grown.
	Grow int64
	// SlowAtFirst is the slow threshold until the calls' holding times set one (slow.go), if longer
	// than SpawnAfter: on a large build a fresh pool's first calls are long scans, not stuck ones.
	SlowAtFirst time.Duration
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

// Event is one thing that happened to a worker, for the log (mcpserver's eventLog writes its fields).
type Event struct {
	Worker string // what happened: started, crashed, out_of_memory, killed, engine_failed, exited, retired
	PID    int
	Exit   string // how the process ended, as the OS tells it; "" while it runs
}

// Pool is the supervisor: it runs each query in a worker process and answers with the query's
// result or a *fault.Error, whatever happens to the worker.
type Pool struct {
	cfg     Config
	slots   chan struct{} // one per busy worker
	waiting atomic.Int64

	mu     sync.Mutex
	idle   []*proc
	live   int // processes started and not yet reaped
	closed bool
	sweep  bool // a retirement of idle workers is scheduled
	// waiters are the calls waiting for a worker, first come first: a worker given back goes to the
	// first, so that none waits behind later ones and one wake-up serves one call.
	waiters []*waiter
	all     map[*proc]bool
	// noStartUntil holds back the next start for a waiting call after one failed.
	noStartUntil time.Time
	// starting counts the starts under way, which Close waits for: a start it did not see finds the
	// pool closed and stops its process itself.
	starting sync.WaitGroup
	// fit is how many workers Config.Memory holds (fitting), and over whether they hold
	// more than it, as of readAt; reading says a reading is under way (memory.go).
	fit     int
	over    bool
	reading bool
	readDue bool // a reading is set for later
	readAt  time.Time
	leaving int // workers retired for memory and not yet reaped
	// heldSlow is slowFactor times what the latest calls held their workers (heldTimes, the next at
	// heldNext), which the slow threshold is when longer than SpawnAfter (slow.go).
	heldSlow  time.Duration
	heldTimes [heldWindow]time.Duration
	heldNext  int
	slowCheck time.Time // when the waiting calls look again for a worker turned slow (armSlow)
}

// NewPool returns a pool; Start warms it.
func NewPool(cfg Config) *Pool {
	if cfg.Max < 1 {
		cfg.Max = 1
	}
	cfg.Size = min(cfg.Size, cfg.Max)
	cfg.Active = min(max(cfg.Active, cfg.Size, 1), cfg.Max)
	if cfg.Log == nil {
		cfg.Log = func(Event) {}
	}
	if cfg.Observe == nil {
		cfg.Observe = func(string) {}
	}
	return &Pool{cfg: cfg, slots: make(chan struct{}, cfg.Max), all: map[*proc]bool{}, fit: cfg.Max}
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
	p.starting.Wait()
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
	if err := w.conn.sendJSON(typeQuery, w.request(ctx, d, sqlText)); err != nil {
		err := p.lost(w)
		p.leave()
		return nil, err
	}
	return p.await(ctx, w)
}

// request is w's next query.
func (w *proc) request(ctx context.Context, d *schema.Dataset, sqlText string) request {
	w.seq++
	req := request{Seq: w.seq, Dataset: d.Name, SQL: []byte(sqlText)}
	if dl, ok := ctx.Deadline(); ok {
		req.Deadline = dl.UnixNano()
	}
	return req
}

// await waits for w's answer to the query just sent, and leaves the slot when w is done with it.
func (p *Pool) await(ctx context.Context, w *proc) (*query.Result, error) {
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
		if stopped {
			p.put(w)
			p.cfg.Observe(OutcomeTimeout)
		} else {
			p.putAnswered(w)
			p.cfg.Observe(OutcomeOK)
		}
		return DecodeResult(b)
	case typeError:
		var fl failure
		if err := json.Unmarshal(f.payload, &fl); err != nil || fl.Seq != w.seq {
			w.kill()
			p.cfg.Observe(OutcomeKilled)
			p.reap(w, "killed")
			return nil, fmt.Errorf("worker: bad error answer")
		}
		switch {
		case stopped || fl.Kind == string(fault.KindTimeout):
			p.cfg.Observe(OutcomeTimeout)
		case fl.Kind == string(fault.KindCrashed): // its engine failed: the worker goes
			p.cfg.Observe(OutcomeCrashed)
		default:
			p.cfg.Observe(OutcomeError)
		}
		switch {
		case fl.Exit:
			go p.reap(w, "engine_failed")
		case stopped || fl.Kind == string(fault.KindTimeout):
			p.put(w)
		default:
			p.putAnswered(w)
		}
		return nil, &fault.Error{Kind: fault.Kind(fl.Kind), Message: fl.Message, Hint: fl.Hint}
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
		return &fault.Error{Kind: fault.KindTooLarge, Hint: "select fewer rows or shorter values, and filter before aggregating",
			Message: "the query needed more memory than a query may use and was stopped"}
	}
	p.cfg.Observe(OutcomeCrashed)
	p.reap(w, "crashed")
	return &fault.Error{Kind: fault.KindCrashed, Hint: CrashedHint,
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
		return &fault.Error{Kind: fault.KindBusy, Hint: "retry in a few seconds",
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

// Busy is how many worker processes are running a query (or finishing one a call gave up on).
func (p *Pool) Busy() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for w := range p.all {
		if !w.busySince.IsZero() {
			n++
		}
	}
	return n
}

// Waiting is how many calls wait for a worker.
func (p *Pool) Waiting() int { return int(p.waiting.Load()) }
