package mcpserver

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/query"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDrain is how long a stopping HTTP server lets the calls in flight finish (--drain).
const DefaultDrain = 10 * time.Second

// RetryAfter is what a draining server tells a new call to wait before it tries again (another
// replica, behind a load balancer, takes it at once).
const RetryAfter = 5 * time.Second

// HTTPConfig is how ServeHTTP serves.
type HTTPConfig struct {
	Addr    string
	Timeout time.Duration // each call's time limit
	Drain   time.Duration // how long calls in flight may finish once a stop is asked; 0: DefaultDrain
	Log     *Log          // the start and stop lines
	Build   string        // the build opened at the start, for the start line
	Health  *Health       // turned draining when the stop starts; nil: none
	Metrics string        // the URL of the --metrics listener, for the start line
	Auth    *Auth         // guards the endpoint when set (the one given to New); nil: no auth
}

// ServeHTTP serves srv (handler) until ctx ends, then drains: the listener stays open and answers new
// calls 503 with Retry-After while the calls in flight finish, for at most c.Drain, then it closes.
// When now ends (a second signal), it stops at once.
func ServeHTTP(ctx, now context.Context, srv *mcp.Server, c HTTPConfig) error {
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return ctool.Errorf(ctool.KindUsage, "--http %s: %v", c.Addr, err)
	}
	if c.Drain <= 0 {
		c.Drain = DefaultDrain
	}
	if c.Health == nil {
		c.Health = &Health{}
	}
	c.Health.Ready()
	longest := longestCall(c.Timeout)
	var busy activeConns
	gate := &drainGate{next: handler(srv, c.Auth), health: c.Health}
	hs := &http.Server{Handler: gate, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: longest, IdleTimeout: 2 * time.Minute, ConnState: busy.track}
	c.Log.Start("http://"+ln.Addr().String()+Path, c.Build, c.Metrics)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	// Drain: readiness and new calls say 503 at once; connections are not kept alive, so that a
	// client's next call goes through a new one (to another replica).
	c.Health.Drain()
	hs.SetKeepAlivesEnabled(false)
	start := time.Now()
	deadline := time.NewTimer(c.Drain)
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
		case <-now.Done():
			cut = int(gate.inFlight.Load())
			break wait
		}
	}
	c.Log.stop(time.Since(start), cut)
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
		case <-now.Done():
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
	health   *Health
	inFlight atomic.Int64
}

func (g *drainGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Counted before the check, so that a drain that sees none in flight has let none through.
	g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	if g.health.Draining() {
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
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
