package main

// End-to-end tests of `ctool mcp` as a service: the stdio drain at the end of the input, the graceful
// stop over HTTP on SIGTERM with readiness turning 503, and the health and metrics listener. The
// server is the real binary. No assertion depends on how fast anything is.
//
//	go test ./cmd/ctool -run TestMCPOps

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
)

func TestMCPOps(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	t.Run("stdio_drain", func(t *testing.T) { testStdioDrainAtEOF(t, db) })
	t.Run("sigterm_drain", func(t *testing.T) { testHTTPDrainOnSIGTERM(t, db) })
}

// Requests piped with stdin closed at once, as a one-shot client does: every one is answered and the
// server exits 0. Repeated, since the answers once depended on timing.
func testStdioDrainAtEOF(t *testing.T, db string) {
	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_stores","arguments":{"sql_query":"SELECT store_name FROM stores LIMIT 3"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_events","arguments":{"sql_query":"SELECT event_name FROM events LIMIT 3"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_products","arguments":{"sql_query":"SELECT product_name FROM products LIMIT 3"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_user_profile","arguments":{"profile_id":"user_criollo_heavy"}}}`,
	}
	for run := range 5 {
		cmd := mcpCommand(t, nil, "--db", db)
		cmd.Stdin = strings.NewReader(strings.Join(calls, "\n") + "\n")
		var stdout bytes.Buffer
		stderr := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: ctool mcp: %v\nstderr:\n%s", run, err, stderr)
		}
		got := map[int64]bool{}
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var msg rpcMessage
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID == nil || msg.Error != nil {
				t.Fatalf("run %d: %s", run, sc.Bytes())
			}
			got[*msg.ID] = true
		}
		for id := int64(1); id <= 5; id++ {
			if !got[id] {
				t.Fatalf("run %d: request %d was not answered\nstdout:\n%s\nstderr:\n%s", run, id, stdout.String(), stderr)
			}
		}
	}
}

// SIGTERM while a slow query runs over HTTP: /readyz turns 503 at once, a new call is answered 503
// with Retry-After, the slow query is answered with its rows, and the server exits 0.
func testHTTPDrainOnSIGTERM(t *testing.T, db string) {
	cmd := mcpCommand(t, nil, "--db", db, "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--timeout", "1m", "--drain", "2m")
	stderr := &syncBuffer{}
	startLine := newStartLine(stderr)
	cmd.Stderr = startLine
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	gone := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(gone) }()
	defer func() {
		cmd.Process.Kill()
		<-gone
	}()
	first := startLine.wait(t, gone)
	var start struct{ Serving, Metrics string }
	start.Serving, _ = first["serving"].(string)
	start.Metrics, _ = first["metrics"].(string)
	get := func(path string) int {
		resp, err := http.Get(start.Metrics + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz while serving: %d", code)
	}
	// Single-threaded workers count through 10⁹ rows in a few seconds.
	const slow = "SELECT count(*) AS n FROM range(1000000000) t(x) WHERE x % 7 = 3"
	post := func(id int, sql string) (int, http.Header, string, error) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_stores","arguments":{"sql_query":%q}}}`, id, sql)
		req, _ := http.NewRequest("POST", start.Serving, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b), nil
	}
	var wg sync.WaitGroup
	var slowCode int
	var slowBody string
	var slowErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		slowCode, _, slowBody, slowErr = post(1, slow)
	}()
	waitForGauge(t, start.Metrics, "ctool_workers_busy", 1) // the slow query is running
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(mcpWait); get("/readyz") != http.StatusServiceUnavailable; {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not turn 503 after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, header, body, err := post(2, "SELECT 1")
	if err != nil || code != http.StatusServiceUnavailable || header.Get("Retry-After") == "" {
		t.Errorf("a call while draining: %d Retry-After %q %s %v, want 503 with Retry-After", code, header.Get("Retry-After"), body, err)
	}
	wg.Wait()
	if slowErr != nil || slowCode != http.StatusOK || !strings.Contains(slowBody, `"n":`) || strings.Contains(slowBody, `"isError":true`) {
		t.Errorf("the call in flight at SIGTERM: %d %s %v, want its rows", slowCode, slowBody, slowErr)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("ctool mcp after SIGTERM: %v, want exit 0\nstderr:\n%s", err, stderr)
		}
	case <-time.After(mcpWait):
		t.Fatalf("ctool mcp did not exit after the drain\nstderr:\n%s", stderr)
	}
	if !strings.Contains(stderr.String(), `"stopped":"drained"`) {
		t.Errorf("no drain line:\n%s", stderr)
	}
}
