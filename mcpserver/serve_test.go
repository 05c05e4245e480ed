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
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool"
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
			t.Errorf("ServeHTTP = %v, want nil after the context ended", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a speed check
		t.Fatal("ServeHTTP did not return after the context ended")
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
	var ce *ctool.Error
	if !errors.As(err, &ce) || ce.Kind != ctool.KindUsage || !strings.HasPrefix(ce.Message, "--http "+ln.Addr().String()+": ") {
		t.Errorf("ServeHTTP on a taken address = %v, want a usage error naming --http", err)
	}
}

// servedURL waits for the start line serveHTTP writes and returns its URL.
func servedURL(t *testing.T, log *syncBuffer) string {
	t.Helper()
	for range 1000 { // a hang guard
		if line, _, ok := strings.Cut(log.String(), "\n"); ok {
			var start struct{ Serving string }
			if err := json.Unmarshal([]byte(line), &start); err != nil {
				t.Fatal(err)
			}
			return start.Serving
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no start line")
	return ""
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
	log := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, nil, slowServer(time.Second), httpConfig{addr: "127.0.0.1:0", timeout: 5 * time.Second,
			drain: 30 * time.Second, log: newEventLog(log), build: "b1", health: health})
	}()
	url := servedURL(t, log)
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
	time.Sleep(300 * time.Millisecond) // the slow call is in flight
	cancel()
	for range 100 { // a hang guard
		if health.draining() {
			break
		}
		time.Sleep(10 * time.Millisecond)
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
	a := <-slow
	if a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"done"`) {
		t.Errorf("the call in flight: %d %s %v, want its answer", a.code, a.body, a.err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP = %v, want nil after the drain", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("ServeHTTP did not return after the drain")
	}
	if !strings.Contains(log.String(), `"stopped":"drained"`) || strings.Contains(log.String(), `"cut"`) {
		t.Errorf("log:\n%s", log)
	}
}

// A second signal stops at once, cutting the call in flight.
func TestServeHTTPStopsNow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	now := make(chan struct{})
	log := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, now, slowServer(time.Hour), httpConfig{addr: "127.0.0.1:0", timeout: time.Hour, drain: time.Hour, log: newEventLog(log), build: "b1"})
	}()
	url := servedURL(t, log)
	go postCall(url, 1)
	time.Sleep(300 * time.Millisecond)
	cancel()
	time.Sleep(100 * time.Millisecond)
	close(now)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP = %v", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("ServeHTTP did not stop at the second signal")
	}
	if !strings.Contains(log.String(), `"cut":1`) {
		t.Errorf("log:\n%s", log)
	}
}
