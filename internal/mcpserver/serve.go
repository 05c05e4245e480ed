package mcpserver

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDrain is how long a stopping HTTP server lets the calls in flight finish (--drain).
const DefaultDrain = 10 * time.Second

// retryAfter is what a draining server tells a new call to wait before it tries again (another
// replica, behind a load balancer, takes it at once).
const retryAfter = 5 * time.Second

// httpConfig is how serveHTTP serves.
type httpConfig struct {
	addr    string
	timeout time.Duration // each call's time limit
	drain   time.Duration // how long calls in flight may finish once a stop is asked; 0: DefaultDrain
	log     *eventLog     // the start and stop lines
	build   string        // the build opened at the start, for the start line
	health  *readiness    // turned draining when the stop starts; nil: none
	metrics string        // the URL of the --metrics listener, for the start line
	auth    *authorizer   // guards the endpoint when set (the one given to newServer); nil: no auth
	// handler, when set, serves in place of handler(srv, auth): the sites of `ctool mcp --site`,
	// whose builds sites names for the start line.
	handler http.Handler
	sites   slog.Attr
}

// serveHTTP serves srv (handler) until ctx ends, then drains: the listener stays open and answers new
// calls 503 with Retry-After while the calls in flight finish, for at most c.Drain, then it closes.
// When abort is closed (a second signal), it stops at once.
func serveHTTP(ctx context.Context, abort <-chan struct{}, srv *mcp.Server, c httpConfig) error {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fault.Errorf(fault.KindUsage, "--http %s: %v", c.addr, err)
	}
	if c.drain <= 0 {
		c.drain = DefaultDrain
	}
	if c.health == nil {
		c.health = &readiness{}
	}
	c.health.ready()
	longest := longestCall(c.timeout)
	var busy activeConns
	next := c.handler
	if next == nil {
		next = handler(srv, c.auth)
	}
	gate := &drainGate{next: next, health: c.health}
	hs := &http.Server{Handler: gate, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: longest, IdleTimeout: 2 * time.Minute, ConnState: busy.track}
	c.log.start("http://"+ln.Addr().String()+Path, c.build, c.metrics, c.sites)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	// Drain: readiness and new calls say 503 at once; connections are not kept alive, so that a
	// client's next call goes through a new one (to another replica).
	c.health.drain()
	hs.SetKeepAlivesEnabled(false)
	start := time.Now()
	deadline := time.NewTimer(c.drain)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	cut := 0
wait:
	for gate.inFlight.Load() > 0 {
		select {
		case <-tick.C:
		case <-deadline.C:
			cut = int(gate.inFlight.Load())
			break wait
		case <-abort:
			cut = int(gate.inFlight.Load())
			break wait
		}
	}
	c.log.stop(time.Since(start), cut)
	if cut > 0 {
		hs.Close()
		<-served
		return nil
	}
	// Shutdown stops accepting and waits for requests still being written. It would also wait up to
	// 5 s for connections that were opened but never sent a request; once none is active they are
	// closed at once.
	stopCtx, cancel := context.WithTimeout(context.Background(), longest)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- hs.Shutdown(stopCtx) }()
	for {
		select {
		case err := <-stopped:
			<-served
			return err
		case <-abort:
			hs.Close()
		case <-tick.C:
			if busy.none() {
				hs.Close()
			}
		}
	}
}

// drainGate counts the calls in flight and, once a drain has started, answers new ones 503.
type drainGate struct {
	next     http.Handler
	health   *readiness
	inFlight atomic.Int64
}

func (g *drainGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Counted before the check, so that a drain that sees none in flight has let none through.
	g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	if g.health.draining() {
		w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
		w.Header().Set("Connection", "close")
		http.Error(w, "Service Unavailable: the server is stopping; retry shortly, or on another replica", http.StatusServiceUnavailable)
		return
	}
	g.next.ServeHTTP(w, r)
}

// longestCall is how long a call may take with its time limit (query/deadlines.go).
func longestCall(timeout time.Duration) time.Duration {
	return timeout + query.StopGrace + query.AnswerMargin
}

// activeConns counts the connections that are serving a request.
type activeConns struct {
	mu     sync.Mutex
	active map[net.Conn]bool
}

func (a *activeConns) track(c net.Conn, state http.ConnState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active == nil {
		a.active = map[net.Conn]bool{}
	}
	if state == http.StateActive {
		a.active[c] = true
	} else {
		delete(a.active, c)
	}
}

func (a *activeConns) none() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.active) == 0
}
