package mcpserver

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/internal/fault"
)

// readiness is what /healthz and /readyz tell a load balancer or an orchestrator: the process answers
// (always), and whether it can serve calls (a build open and the warm workers started, not draining).
// Its zero value is starting: not ready.
type readiness struct{ state atomic.Int32 }

const (
	stateStarting int32 = iota
	stateReady
	stateDraining
)

// ready says the server can serve: its build is open and its warm workers answered.
func (h *readiness) ready() { h.state.CompareAndSwap(stateStarting, stateReady) }

// drain says the server is stopping: /readyz answers 503 from now on.
func (h *readiness) drain() { h.state.Store(stateDraining) }

// draining reports whether a drain has started.
func (h *readiness) draining() bool { return h.state.Load() == stateDraining }

func (h *readiness) status() (int, string) {
	switch h.state.Load() {
	case stateReady:
		return http.StatusOK, "ready\n"
	case stateDraining:
		return http.StatusServiceUnavailable, "draining\n"
	}
	return http.StatusServiceUnavailable, "starting\n"
}

// monitorHandler serves /healthz (the process answers), /readyz (readiness) and /metrics (m, if any).
func monitorHandler(h *readiness, m *metricSet) http.Handler {
	var metrics http.Handler
	if m != nil {
		metrics = m.handler()
	}
	return monitorMux(h, metrics, nil)
}

// monitorMux serves /readyz, /metrics (when metrics is not nil) and /healthz: healthz when given (the
// builds and their follow: internal/sites), else "ok".
func monitorMux(h *readiness, metrics, healthz http.Handler) http.Handler {
	mux := http.NewServeMux()
	if healthz == nil {
		healthz = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte("ok\n"))
		})
	}
	mux.Handle("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		code, body := h.status()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		w.Write([]byte(body))
	})
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	return mux
}

// listenMonitor serves handler on addr (--metrics), a listener of its own, until stop is called.
func listenMonitor(addr string, handler http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fault.Errorf(fault.KindUsage, "--metrics %s: %v", addr, err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			hs.Close()
		}
	}, nil
}
