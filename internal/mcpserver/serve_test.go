package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeHTTPStopsWhenAsked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, nil, srv, httpConfig{addr: "127.0.0.1:0", timeout: time.Second, log: newEventLog(&log), build: "b1"})
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveHTTP = %v, want nil after the context ended", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a speed check
		t.Fatal("serveHTTP did not return after the context ended")
	}
}

func TestServeHTTPAddressTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	err = serveHTTP(context.Background(), nil, srv, httpConfig{addr: ln.Addr().String(), timeout: time.Second, log: newEventLog(&bytes.Buffer{}), build: "b1"})
	var ce *fault.Error
	if !errors.As(err, &ce) || ce.Kind != fault.KindUsage || !strings.HasPrefix(ce.Message, "--http "+ln.Addr().String()+": ") {
		t.Errorf("serveHTTP on a taken address = %v, want a usage error naming --http", err)
	}
}

// startLine is a log that hands over its first line, the server's start line, once written: the
// signal that it serves.
type startLine struct {
	syncBuffer
	done atomic.Bool
	line chan string
}

func newStartLine() *startLine { return &startLine{line: make(chan string, 1)} }

func (s *startLine) Write(p []byte) (int, error) {
	n, err := s.syncBuffer.Write(p)
	if !s.done.Load() {
		if line, _, ok := strings.Cut(s.syncBuffer.String(), "\n"); ok && s.done.CompareAndSwap(false, true) {
			s.line <- line
		}
	}
	return n, err
}

// url waits for the start line and returns the URL it serves.
func (s *startLine) url(t *testing.T) string {
	t.Helper()
	select {
	case line := <-s.line:
		var start struct{ Serving string }
		if err := json.Unmarshal([]byte(line), &start); err != nil {
			t.Fatal(err)
		}
		return start.Serving
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("no start line")
		return ""
	}
}

// heldServer's tool "slow" says when a call has entered it, and answers once released (or stopped).
func heldServer() (srv *mcp.Server, entered <-chan struct{}, release chan<- struct{}) {
	in, out := make(chan struct{}, 8), make(chan struct{})
	srv = mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in <- struct{}{}
			select {
			case <-out:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return srv, in, out
}

func postCall(url string, id int) (*http.Response, string, error) {
	body := `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

// A stop asked while a slow call runs: readiness turns 503, a new call is answered 503 with
// Retry-After while the listener stays open, the slow call is answered, and serveHTTP returns nil.
func TestServeHTTPDrains(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	health := &readiness{}
	monitor := httptest.NewServer(monitorHandler(health, nil))
	defer monitor.Close()
	readyz := func() int {
		resp, err := http.Get(monitor.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the start: %d, want 503", code)
	}
	log := newStartLine()
	srv, entered, release := heldServer()
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, nil, srv, httpConfig{addr: "127.0.0.1:0", timeout: 5 * time.Second,
			drain: 30 * time.Second, log: newEventLog(log), build: "b1", health: health})
	}()
	url := log.url(t)
	if code := readyz(); code != http.StatusOK {
		t.Errorf("/readyz while serving: %d, want 200", code)
	}
	type answer struct {
		code int
		body string
		err  error
	}
	slow := make(chan answer, 1)
	go func() {
		resp, body, err := postCall(url, 1)
		if err != nil {
			slow <- answer{err: err}
			return
		}
		slow <- answer{resp.StatusCode, body, nil}
	}()
	<-entered // the slow call is in flight
	cancel()
	for deadline := time.Now().Add(time.Minute); !health.draining(); runtime.Gosched() { // the drain starts in serveHTTP's goroutine
		if time.Now().After(deadline) {
			t.Fatal("no drain within a minute of the stop")
		}
	}
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %d, want 503", code)
	}
	resp, body, err := postCall(url, 2)
	if err != nil {
		t.Fatalf("a call while draining: %v (the listener must stay open)", err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a call while draining: HTTP %d Retry-After %q %s, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	close(release)
	a := <-slow
	if a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"done"`) {
		t.Errorf("the call in flight: %d %s %v, want its answer", a.code, a.body, a.err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveHTTP = %v, want nil after the drain", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("serveHTTP did not return after the drain")
	}
	if !strings.Contains(log.String(), `"stopped":"drained"`) || strings.Contains(log.String(), `"cut"`) {
		t.Errorf("log:\n%s", log)
	}
}

// A second signal stops at once, cutting the call in flight.
func TestServeHTTPStopsNow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	now := make(chan struct{})
	log := newStartLine()
	srv, entered, _ := heldServer()
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, now, srv, httpConfig{addr: "127.0.0.1:0", timeout: time.Hour, drain: time.Hour, log: newEventLog(log), build: "b1"})
	}()
	go postCall(log.url(t), 1)
	<-entered
	cancel()
	close(now)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveHTTP = %v", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("serveHTTP did not stop at the second signal")
	}
	if !strings.Contains(log.String(), `"cut":1`) {
		t.Errorf("log:\n%s", log)
	}
}
