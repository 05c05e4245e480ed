package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/query"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeHTTP serves srv (handler) on addr until ctx ends, then lets the calls in flight finish. timeout
// is each call's time limit; log gets the start line naming build.
func ServeHTTP(ctx context.Context, srv *mcp.Server, addr string, timeout time.Duration, log io.Writer, build string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return ctool.Errorf(ctool.KindUsage, "--http %s: %v", addr, err)
	}
	longest := longestCall(timeout)
	var busy activeConns
	hs := &http.Server{Handler: handler(srv), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: longest, IdleTimeout: 2 * time.Minute, ConnState: busy.track}
	LogStart(log, "http://"+ln.Addr().String()+Path, build)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Shutdown stops accepting and waits for the requests in flight. It would also wait up to 5 s for
	// connections that were opened but never sent a request; once no request is in flight they are
	// closed at once.
	stopCtx, cancel := context.WithTimeout(context.Background(), longest)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- hs.Shutdown(stopCtx) }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-stopped:
			<-served
			return err
		case <-tick.C:
			if busy.none() {
				hs.Close()
			}
		}
	}
}

// longestCall is how long a call may take with its time limit: the timeout plus the engine's grace,
// and a little more to write the answer.
func longestCall(timeout time.Duration) time.Duration {
	return timeout + query.StopGrace + 5*time.Second
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
