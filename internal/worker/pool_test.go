package worker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// The test binary doubles as a worker whose queries misbehave on request: with CTOOL_TEST_WORKER set
// it serves the protocol on stdin and stdout, and the SQL text says what to do.
func TestMain(m *testing.M) {
	if os.Getenv("CTOOL_TEST_WORKER") == "refuse" { // a worker that cannot open its database
		Refuse(os.Stdout, &fault.Error{Kind: fault.KindNoDatabase, Message: "no usable ctool database"})
		os.Exit(0)
	}
	if os.Getenv("CTOOL_TEST_WORKER") == "1" {
		if os.Getenv("CTOOL_TEST_RUNNING") != "" {
			running = os.NewFile(3, "running") // testWorker's pipe
		}
		if err := Serve(os.Stdin, os.Stdout, "test-build", fakeQuery); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// running, in a test worker, is where it says which slow or stuck query it has started: the tests
// wait for that line (logged.started), not for a clock.
var running *os.File

func fakeQuery(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
	if running != nil && (sqlText == "stuck" || sqlText == "slow") {
		fmt.Fprintln(running, sqlText)
	}
	switch sqlText {
	case "crash":
		fmt.Fprintln(os.Stderr, "SIGSEGV: segmentation violation\nPC=0x0 m=3 sigcode=1")
		os.Exit(2)
	case "oom":
		fmt.Fprintln(os.Stderr, "fatal error: out of memory\n\nruntime stack:")
		os.Exit(2)
	case "stuck":
		select {} // ignores its context, as DuckDB sometimes does
	case "slow":
		<-ctx.Done()
		return nil, query.Stopped(ctx)
	case "internal":
		return nil, &fault.Error{Kind: fault.KindSQL, Message: "INTERNAL Error: Attempted to access index 0 within vector of size 0\n\nStack Trace:\n/home/build/bin/ctool(+0x1234)"}
	case "refused":
		return nil, &fault.Error{Kind: fault.KindRefused, Message: "refused: DROP.", Hint: "SELECT instead"}
	}
	return &query.Result{Dataset: d, Columns: []query.Column{{Name: "pid", Type: "BIGINT"}},
		Rows: [][]any{{int64(os.Getpid())}}, Omitted: []string{}}, nil
}

// logged is what a pool's workers told the test: its log's events, Config.Observe's outcomes and the
// slow or stuck queries the workers have started. Each news closes changed, so a test waits for it.
type logged struct {
	mu       sync.Mutex
	events   []Event
	outcomes []string       // Config.Observe's
	started  map[string]int // the queries the workers said they started, by SQL text
	changed  chan struct{}  // closed, and replaced, at each news
}

func newLogged() *logged {
	return &logged{started: map[string]int{}, changed: make(chan struct{})}
}

// news records one piece of news with l.mu held, and wakes the waits.
func (l *logged) news(record func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	record()
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *logged) observe(outcome string) { l.news(func() { l.outcomes = append(l.outcomes, outcome) }) }

func (l *logged) add(e Event) { l.news(func() { l.events = append(l.events, e) }) }

// observed reports whether outcome was observed. Called with l.mu held, as has and count are.
func (l *logged) observed(outcome string) bool { return slices.Contains(l.outcomes, outcome) }

func (l *logged) has(what string) bool { return l.count(what) > 0 }

// count is how many events say what.
func (l *logged) count(what string) int {
	n := 0
	for _, e := range l.events {
		if e.Worker == what {
			n++
		}
	}
	return n
}

// waitFor returns once cond, called with l.mu held, holds; it looks again at each news. The bound only
// keeps a broken pool from hanging the test: after it, the test fails with what it has seen.
func (l *logged) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		l.mu.Lock()
		ok, changed := cond(), l.changed
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("%s: not within a minute; events %+v, outcomes %v, started %v", what, l.events, l.outcomes, l.started)
		}
	}
}

// waitStarted returns once the workers have started n queries sqlText ("slow" or "stuck").
func (l *logged) waitStarted(t *testing.T, sqlText string, n int) {
	t.Helper()
	l.waitFor(t, fmt.Sprintf("%d %s queries started", n, sqlText), func() bool { return l.started[sqlText] >= n })
}

// waitUntil polls the pool's state, which tells no one when it changes, until cond holds; the bound
// is a hang guard.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
	}
}

func newTestPool(t *testing.T, size, max, queue int) (*Pool, *logged) {
	t.Helper()
	log := newLogged()
	p := NewPool(Config{
		Command: testWorker(t, log),
		Size:    size, Max: max, Queue: queue, Grace: 200 * time.Millisecond, Log: log.add, Observe: log.observe,
	})
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		if kids := children(t); len(kids) > 0 {
			t.Errorf("after Close, child processes are left: %v", kids)
		}
	})
	return p, log
}

// testWorker is the command of a worker served by this test binary (see TestMain). With log, each
// worker says on a pipe which slow or stuck query it has started, and log.started counts them.
func testWorker(t *testing.T, log *logged) func() *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var pw *os.File
	if log != nil {
		pr, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pw = w
		// Closed after the pool's own cleanup (cleanups run last first): the reader ends once the
		// workers are gone too.
		t.Cleanup(func() { pw.Close() })
		go func() {
			defer pr.Close()
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				log.news(func() { log.started[sc.Text()]++ })
			}
		}()
	}
	return func() *exec.Cmd {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "CTOOL_TEST_WORKER=1")
		if pw != nil {
			cmd.Env = append(cmd.Env, "CTOOL_TEST_RUNNING=3")
			cmd.ExtraFiles = []*os.File{pw}
		}
		return cmd
	}
}

// children lists this process's child processes, zombies included.
func children(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := strconv.Itoa(os.Getpid())
	var kids []string
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me {
			kids = append(kids, e.Name()+" "+fields[0])
		}
	}
	return kids
}

func pidOf(t *testing.T, p *Pool) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Query(ctx, schema.Stores, "pid")
	if err != nil {
		t.Fatalf("a plain query failed: %v", err)
	}
	return res.Rows[0][0].(int64)
}

func kindOf(err error) fault.Kind {
	var e *fault.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func TestPoolSurvivesWorkers(t *testing.T) {
	tests := []struct {
		sql     string
		timeout time.Duration
		kind    fault.Kind
		event   string // what the log says happened to the worker, if it went
		outcome string // what Config.Observe is told
	}{
		{"crash", time.Minute, fault.KindCrashed, "crashed", OutcomeCrashed},
		{"oom", time.Minute, fault.KindTooLarge, "out_of_memory", OutcomeOutOfMemory},
		{"internal", time.Minute, fault.KindCrashed, "engine_failed", OutcomeCrashed},
		{"stuck", 100 * time.Millisecond, fault.KindTimeout, "killed", OutcomeKilled},
		{"slow", 100 * time.Millisecond, fault.KindTimeout, "", OutcomeTimeout},
		{"refused", time.Minute, fault.KindRefused, "", OutcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, log := newTestPool(t, 1, 2, 4)
			before := pidOf(t, p)
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			_, err := p.Query(ctx, schema.Stores, tt.sql)
			if kindOf(err) != tt.kind {
				t.Fatalf("got %v (kind %q), want kind %s", err, kindOf(err), tt.kind)
			}
			if strings.Contains(err.Error(), "Stack Trace") || strings.Contains(err.Error(), "/home/build") {
				t.Errorf("the error carries DuckDB's stack trace: %v", err)
			}
			// The next call is answered, by the same worker or another.
			after := pidOf(t, p)
			log.waitFor(t, "the outcome "+tt.outcome+", and ok for the next call", func() bool {
				return log.observed(tt.outcome) && log.observed(OutcomeOK)
			})
			if tt.event != "" {
				log.waitFor(t, "the event "+tt.event, func() bool { return log.has(tt.event) })
				if after == before {
					t.Errorf("the worker (pid %d) was kept after %s", before, tt.sql)
				}
			} else {
				// A query that stopped when asked keeps its worker: it is given back.
				waitUntil(t, "the worker given back", func() bool { return len(p.slots) == 0 })
				log.mu.Lock()
				if len(log.events) > 0 {
					t.Errorf("a worker went after a query that ended well: %+v", log.events)
				}
				log.mu.Unlock()
			}
		})
	}
}

// A worker killed from outside while idle is replaced and the next call works.
func TestPoolWorkerKilledFromOutside(t *testing.T) {
	p, log := newTestPool(t, 1, 1, 4)
	pid := pidOf(t, p)
	if err := syscall.Kill(int(pid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The pool notices at once and says so; a call made before that may still fail.
	log.waitFor(t, "the exited event", func() bool { return log.has("exited") })
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := p.Query(ctx, schema.Stores, "pid")
		cancel()
		if err == nil {
			if res.Rows[0][0].(int64) == pid {
				t.Fatal("a killed worker answered")
			}
			return
		}
		if kindOf(err) != fault.KindCrashed {
			t.Fatalf("after the kill: %v", err)
		}
	}
	t.Fatal("no call succeeded after the worker was killed")
}

// Past the queue a call is answered busy at once; the calls in the queue are served.
func TestPoolBusy(t *testing.T) {
	p, log := newTestPool(t, 1, 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stuck := make(chan error, 1)
	go func() { _, err := p.Query(ctx, schema.Stores, "slow"); stuck <- err }()
	log.waitStarted(t, "slow", 1)
	if n := p.Busy(); n != 1 {
		t.Errorf("Busy = %d while the slow query runs, want 1", n)
	}
	queued := make(chan error, 1)
	go func() { _, err := p.Query(context.Background(), schema.Stores, "pid"); queued <- err }()
	waitUntil(t, "a call waiting", func() bool { return p.Waiting() == 1 })
	if _, err := p.Query(context.Background(), schema.Stores, "pid"); kindOf(err) != fault.KindBusy {
		t.Fatalf("a call past the queue got %v, want kind busy", err)
	}
	cancel()
	if err := <-stuck; kindOf(err) != fault.KindTimeout {
		t.Errorf("the cancelled call got %v", err)
	}
	if err := <-queued; err != nil {
		t.Errorf("the queued call got %v", err)
	}
}

// Many calls at once with stuck ones among them: every plain call is answered.
func TestPoolStuckQueriesDoNotStarve(t *testing.T) {
	p, _ := newTestPool(t, 2, 6, 100)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 50; i++ {
		sql := "pid"
		if i%10 == 0 {
			sql = "stuck"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := p.Query(ctx, schema.Stores, sql)
			if sql == "pid" && err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a plain call failed: %v", err)
	}
}

// Once Active are busy, a call waits for one to come back; one that stays busy (stuck) for
// SpawnAfter does not hold it up for longer: another is started beside it.
func TestPoolSpawnsAfterWait(t *testing.T) {
	p, log := newTestPool(t, 1, 3, 10)
	p.cfg.SpawnAfter = 300 * time.Millisecond
	warm := pidOf(t, p)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// SpawnAfter counts from when the slow query took its worker, after start.
	start := time.Now()
	slow := make(chan error, 1)
	go func() { _, err := p.Query(ctx, schema.Stores, "slow"); slow <- err }()
	log.waitStarted(t, "slow", 1)
	other := pidOf(t, p)
	if held := time.Since(start); held < p.cfg.SpawnAfter {
		t.Errorf("a second worker served %v after the first was taken, before SpawnAfter", held)
	}
	if other == warm {
		t.Errorf("the call was served by the busy worker")
	}
	cancel()
	<-slow

	// Both idle now: calls are served at once, and no third worker is started.
	for range 3 {
		pidOf(t, p)
	}
	p.mu.Lock()
	live := p.live
	p.mu.Unlock()
	if live != 2 {
		t.Errorf("%d workers, want 2", live)
	}
}

// A burst of quick calls is served by Active workers however long it queues: none is slow, so none
// beyond them is started.
func TestPoolQuickCallsUseActiveWorkers(t *testing.T) {
	p, _ := newTestPool(t, 1, 12, 200)
	p.cfg.Active, p.cfg.SpawnAfter = 2, time.Minute
	var mu sync.Mutex
	pids := map[int64]bool{}
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pid := pidOf(t, p)
			mu.Lock()
			pids[pid] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(pids) > 2 || p.Running() > 2 {
		t.Errorf("100 quick calls ran on %d workers, %d running; want at most Active, 2", len(pids), p.Running())
	}
}

// Below Active, a call that finds every worker busy has another started for it at once, not after
// SpawnAfter.
func TestPoolStartsUpToActive(t *testing.T) {
	p, log := newTestPool(t, 1, 12, 10)
	p.cfg.Active, p.cfg.SpawnAfter = 2, time.Minute
	warm := pidOf(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	slow := make(chan error, 1)
	go func() { _, err := p.Query(ctx, schema.Stores, "slow"); slow <- err }()
	log.waitStarted(t, "slow", 1)
	if pid := pidOf(t, p); pid == warm {
		t.Errorf("served by the busy worker")
	}
	cancel()
	<-slow
}

// Eight stuck queries still leave four workers for everyone else: once a query has held its worker
// for SpawnAfter, Active more may run beside the slow ones, within Max.
func TestPoolKeepsActiveBesideStuck(t *testing.T) {
	p, log := newTestPool(t, 1, 12, 100)
	p.cfg.Active, p.cfg.SpawnAfter = 4, 50*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Query(ctx, schema.Stores, "stuck") }()
	}
	log.waitStarted(t, "stuck", 8)
	others, stop := context.WithCancel(ctx)
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Query(others, schema.Stores, "slow") }()
	}
	log.waitStarted(t, "slow", 4)
	if n := p.Running(); n != 12 {
		t.Errorf("%d workers running, want 12", n)
	}
	stop()
	pidOf(t, p) // a spare, given back, serves the next call
	p.Close()
	wg.Wait()
}

// The workers a burst started beyond Size are retired once idle for cfg.Idle; Size stay warm.
func TestPoolRetiresIdleExtras(t *testing.T) {
	p, log := newTestPool(t, 1, 3, 10)
	p.cfg.Idle = 200 * time.Millisecond
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			p.Query(ctx, schema.Stores, "slow")
		}()
	}
	wg.Wait()
	live := func() (live, idle int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.live, len(p.idle)
	}
	if n, _ := live(); n != 3 {
		t.Fatalf("after three slow calls at once, %d workers, want 3", n)
	}
	log.waitFor(t, "two retired events", func() bool { return log.count("retired") == 2 })
	// Each is counted out of the pool just after its event.
	waitUntil(t, "one worker left, idle", func() bool { n, idle := live(); return n == 1 && idle == 1 })
	pidOf(t, p) // the warm worker still answers
}

// A worker whose supervisor went away (its stdin ends) exits, even in the middle of a stuck query.
func TestWorkerExitsWithItsSupervisor(t *testing.T) {
	log := newLogged()
	w, err := spawn(testWorker(t, log)(), func(*proc) {})
	if err != nil {
		t.Fatal(err)
	}
	if f := <-w.replies; f.typ != typeHello {
		t.Fatalf("greeting %q", f.typ)
	}
	if err := w.conn.sendJSON(typeQuery, request{Seq: 1, Dataset: "stores", SQL: []byte("stuck")}); err != nil {
		t.Fatal(err)
	}
	log.waitStarted(t, "stuck", 1)
	w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Minute):
		w.cmd.Process.Kill()
		t.Fatal("the worker kept running after its stdin closed")
	}
	if !w.cmd.ProcessState.Success() {
		t.Errorf("the worker exited with %s", w.cmd.ProcessState)
	}
}

// A worker that has handed its freed memory back after releaseAfter idle still serves: Serve reads
// and answers the next query. In a synctest bubble the idle time passes at once.
func TestWorkerServesAfterRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan error, 1)
		go func() { served <- Serve(inR, outW, "test-build", fakeQuery) }()
		replies := bufio.NewReader(outR)
		if f, err := readFrame(replies); err != nil || f.typ != typeHello {
			t.Fatalf("greeting %q, %v", f.typ, err)
		}
		in := newConn(inW)
		ask := func(seq uint64) {
			t.Helper()
			if err := in.sendJSON(typeQuery, request{Seq: seq, Dataset: "stores", SQL: []byte("pid")}); err != nil {
				t.Fatal(err)
			}
			f, err := readFrame(replies)
			if err != nil || f.typ != typeResult {
				t.Fatalf("query %d: answer %q, %v", seq, f.typ, err)
			}
			if got, _, err := seqOf(f.payload); err != nil || got != seq {
				t.Fatalf("query %d: the answer to %d, %v", seq, got, err)
			}
		}
		ask(1)
		time.Sleep(2 * releaseAfter)
		synctest.Wait() // the idle timer has fired and the memory is handed back
		select {
		case err := <-served:
			t.Fatalf("Serve returned after the idle release: %v", err)
		default:
		}
		ask(2)
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve = %v at the end of its input", err)
		}
	})
}

// newQueuePool is a pool of one worker that never starts another: every call beyond the first waits.
func newQueuePool(t *testing.T) *Pool {
	t.Helper()
	p := NewPool(Config{
		Command: testWorker(t, nil),
		Size:    1, Active: 1, Max: 1, Queue: 16, Grace: 200 * time.Millisecond, SpawnAfter: time.Hour,
	})
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// waitForWaiters returns once n calls wait for a worker.
func waitForWaiters(t *testing.T, p *Pool, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d calls waiting", n), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.waiters) == n
	})
}

// Calls waiting for a worker get it in the order they came, one at a time: a worker given back wakes
// the first of them only, so none waits behind later calls (the tail of the latency under load).
func TestPoolServesWaitersInOrder(t *testing.T) {
	p := newQueuePool(t)
	ctx := context.Background()
	held, err := p.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 8
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := p.take(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			p.put(w)
		}()
		waitForWaiters(t, p, i+1) // the next call comes once this one waits
	}
	p.put(held)
	wg.Wait()
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(order, want) {
		t.Errorf("waiting calls got the worker in the order %v, want %v", order, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waiters) != 0 || len(p.idle) != 1 {
		t.Errorf("after the calls: %d waiting, %d idle; want 0 and 1", len(p.waiters), len(p.idle))
	}
}

// A waiting call whose context ends leaves the queue, and the worker it would have got goes to the
// next call.
func TestPoolWaiterThatGivesUpPassesItsTurn(t *testing.T) {
	p := newQueuePool(t)
	held, err := p.take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	first, giveUp := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := p.take(first)
		gaveUp <- err
	}()
	waitForWaiters(t, p, 1)
	second := make(chan *proc, 1)
	go func() {
		w, err := p.take(context.Background())
		if err != nil {
			t.Error(err)
		}
		second <- w
	}()
	waitForWaiters(t, p, 2)
	// The first call gives up, and the worker comes back before or after it has left the queue: either
	// way the worker is not lost on it.
	giveUp()
	p.put(held)
	if err := <-gaveUp; err == nil {
		t.Error("the call that gave up got a worker")
	}
	select {
	case w := <-second:
		p.put(w)
	case <-time.After(10 * time.Second):
		t.Fatal("the second call never got the worker the first gave up")
	}
}

// Who may take an idle worker: the first waiting call always; while the pool may still grow, any call;
// otherwise a call that has just come only while the first has waited less than starveAfter, and a
// call further back in the queue never.
func TestPoolMayTake(t *testing.T) {
	now := time.Now()
	first := &waiter{since: now.Add(-starveAfter / 2)}
	starved := &waiter{since: now.Add(-starveAfter)}
	second := &waiter{since: now}
	for _, tc := range []struct {
		name    string
		waiters []*waiter
		me      *waiter
		want    bool
	}{
		{"none waits", nil, nil, true},
		{"the first", []*waiter{first, second}, first, true},
		{"further back", []*waiter{first, second}, second, false},
		{"just come, the first has waited briefly", []*waiter{first, second}, nil, true},
		{"just come, the first has waited starveAfter", []*waiter{starved, second}, nil, false},
		{"the starved first", []*waiter{starved, second}, starved, true},
	} {
		p := &Pool{waiters: tc.waiters}
		if got := p.mayTake(tc.me, now); got != tc.want {
			t.Errorf("%s: mayTake = %v, want %v", tc.name, got, tc.want)
		}
		// A pool that may still start a worker (one live of two allowed) lets any call take one.
		growing := &Pool{waiters: tc.waiters, live: 1, cfg: Config{Active: 2, Max: 2}}
		if !growing.mayTake(tc.me, now) {
			t.Errorf("%s, the pool growing: mayTake = false, want true", tc.name)
		}
	}
}
