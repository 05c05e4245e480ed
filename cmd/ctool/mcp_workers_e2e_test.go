package main

// End-to-end tests of `ctool mcp`'s query workers: the engine cases of the hostile corpus (queries
// the guard allows that crash DuckDB, run away or exhaust the memory), stuck queries among many
// calls, a worker killed from outside, an ingest meanwhile, and bad or cancelled stdio requests. The
// server is the real binary, spoken to over stdio and HTTP; worker processes are counted in /proc.
//
//	go test ./cmd/ctool -run TestMCPWorkers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/internal/mcpserver"
	"github.com/azabudai/ctool/internal/worker"
)

func TestMCPWorkers(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	t.Run("engine_cases_stdio", func(t *testing.T) { testEngineCasesStdio(t) })
	t.Run("engine_cases_http", func(t *testing.T) { testEngineCasesHTTP(t, db) })
	t.Run("stuck_among_200", func(t *testing.T) { testStuckAmong200(t, db) })
	t.Run("protocol", func(t *testing.T) { testStdioProtocol(t, db) })
	t.Run("command_line", func(t *testing.T) { testWorkerCommandLine(t, db) })
}

// A worker of ctool mcp is started for many calls: warmed up, learning query shapes, purging idle
// memory, and collecting garbage at the server's target (400, or the operator's GOGC).
func testWorkerCommandLine(t *testing.T, db string) {
	for _, tc := range []struct {
		gogc string // "" for none in the environment
		want string
	}{{"", "400"}, {"150", "150"}, {"off", "-1"}} {
		cmd := mcpCommand(t, nil, "--db", db)
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GOGC=") })
		if tc.gogc != "" {
			cmd.Env = append(cmd.Env, "GOGC="+tc.gogc)
		}
		p := startMCPCommand(t, cmd)
		p.initialize(t)
		want := strings.Join([]string{"ctool", worker.CommandName, "--db=" + db, "--threads=" + strconv.Itoa(mcpserver.WorkerThreads),
			"--warm-up", "--learn-shapes", "--purge-idle", "--gc-percent=" + tc.want}, "\x00") + "\x00"
		var got []string
		for pid := range childPIDs(t, p.cmd.Process.Pid) {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			got = append(got, string(b))
		}
		if len(got) != mcpserver.Workers || got[0] != want {
			t.Errorf("GOGC=%s: the workers' command lines %q, want %d of %q", tc.gogc, got, mcpserver.Workers, want)
		}
		p.stop(t)
	}
}

// engineKind sends one engine case and returns the error kind it got.
func engineKind(t *testing.T, r toolResult) string {
	t.Helper()
	var e struct{ Error, Kind string }
	if !r.IsError || json.Unmarshal([]byte(r.text()), &e) != nil {
		t.Errorf("want an error, got %s", r.text())
	}
	if strings.Contains(e.Error, "Stack Trace") || strings.Contains(e.Error, "/") {
		t.Errorf("the error carries a stack trace or a path: %s", e.Error)
	}
	return e.Kind
}

func selectOne(t *testing.T, c mcpCaller) {
	t.Helper()
	if r := callTool(t, c, "search_stores", map[string]any{"sql_query": "SELECT 1 AS one"}); r.IsError || !strings.Contains(r.text(), `"one":1`) {
		t.Fatalf("SELECT 1: %s", r.text())
	}
}

// Every engine case at once over stdio, an ingest meanwhile, then a worker killed from outside:
// every case ends in an error of its kinds, SELECT 1 answers throughout, and no worker is left.
func testEngineCasesStdio(t *testing.T) {
	sample := ingesttest.SampleInput(t)
	db := ingesttest.Build(t, sample)
	changed := t.TempDir()
	copyInput(t, sample, changed, "麻布台ヒルズマーケット", "麻布台ヒルズマーケット2")
	p := startMCP(t, nil, "--db", db, "--timeout", "5s")
	p.initialize(t)
	server := p.cmd.Process.Pid
	if n := len(childProcs(t, server)); n != mcpserver.Workers {
		t.Errorf("%d workers after the start, want %d warm", n, mcpserver.Workers)
	}

	for i, wave := range engineWaves() {
		chans := make([]chan rpcMessage, len(wave))
		for j, tc := range wave {
			_, chans[j] = p.start(t, "tools/call", map[string]any{"name": "search_events", "arguments": map[string]any{"sql_query": tc.SQL}})
		}
		// While they run: plain calls that are answered, and an ingest.
		selectOne(t, p)
		if i == 1 {
			ingesttest.Rebuild(t, changed, db)
		}
		for j, tc := range wave {
			got := engineKind(t, decodeToolResult(t, p.wait(t, chans[j])))
			if !slices.Contains(tc.Kinds, got) {
				t.Errorf("%s: kind %q, want one of %v", tc.Name, got, tc.Kinds)
			}
		}
		selectOne(t, p)
	}
	r := callTool(t, p, "search_stores", map[string]any{"sql_query": "SELECT count(*) AS n FROM stores WHERE store_name = '麻布台ヒルズマーケット2'"})
	if !strings.Contains(r.text(), `"n":1`) {
		t.Errorf("the ingest was not picked up: %s", r.text())
	}
	// The crashed and killed workers were replaced and waited for: no zombie, no more than the pool's
	// most, and the warm ones back.
	waitFor(t, "workers replaced, no zombies", func() bool {
		kids := childProcs(t, server)
		return len(kids) >= mcpserver.Workers && len(kids) <= mcpserver.MaxWorkers && !slices.Contains(kids, "Z")
	})
	for _, l := range p.stderr.lines(t) {
		if w, ok := l["worker"]; ok && w != "crashed" && w != "killed" && w != "out_of_memory" && w != "engine_failed" && w != "retired" {
			t.Errorf("worker event %v", l)
		}
	}

	// Profiles stay out of the workers: none has the profiles file open, even after a profile call.
	// A worker that was just started to replace one may not have opened the build yet: wait until every
	// worker has, or the check would prove nothing.
	callTool(t, p, "get_user_profile", map[string]any{"profile_id": "user_criollo_heavy"})
	waitFor(t, "every worker has the main file open", func() bool {
		for pid := range childPIDs(t, server) {
			if !hasOpen(pid, func(target string) bool { return strings.HasPrefix(target, db) }) {
				return false // "(deleted)" follows the name when an ingest replaced it
			}
		}
		return true
	})
	for pid := range childPIDs(t, server) {
		if hasOpen(pid, func(target string) bool { return strings.Contains(target, ".profiles-") }) {
			t.Errorf("worker %d has the profiles file open", pid)
		}
	}

	// kill -9 from outside: the pool notices, replaces it, and the next call works.
	var victim int
	for pid := range childPIDs(t, server) {
		victim = pid
		break
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.stderr.waitFor(t, "the killed worker logged", func(string) bool {
		for _, l := range p.stderr.lines(t) {
			if l["pid"] == float64(victim) {
				return true
			}
		}
		return false
	})
	selectOne(t, p)

	p.stop(t)
	waitFor(t, "no worker left after the server stopped", func() bool { return len(workersOf(t, db)) == 0 })
}

// The engine cases over HTTP, all at once, then SELECT 1.
func testEngineCasesHTTP(t *testing.T, db string) {
	s := startMCPHTTP(t, "--db", db, "--timeout", "5s")
	for _, cases := range engineWaves() {
		var wg sync.WaitGroup
		kinds := make([]string, len(cases))
		for i, tc := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kinds[i] = engineKind(t, decodeToolResult(t, s.call(t, "tools/call", map[string]any{"name": "search_products", "arguments": map[string]any{"sql_query": tc.SQL}})))
			}()
		}
		wg.Wait()
		for i, tc := range cases {
			if !slices.Contains(tc.Kinds, kinds[i]) {
				t.Errorf("%s: kind %q, want one of %v", tc.Name, kinds[i], tc.Kinds)
			}
		}
		selectOne(t, s)
	}
}

// engineWaves splits the engine cases in two: the crashes first, so that on a loaded machine the
// runaway queries do not slow them past the timeout, then the rest.
func engineWaves() [2][]guardtest.EngineCase {
	var w [2][]guardtest.EngineCase
	for _, tc := range guardtest.Engine() {
		if len(tc.Kinds) == 1 && tc.Kinds[0] == "crashed" {
			w[0] = append(w[0], tc)
		} else {
			w[1] = append(w[1], tc)
		}
	}
	return w
}

// 200 calls at once with 8 stuck queries among them: every other call is answered well within its
// timeout, over stdio and over HTTP.
func testStuckAmong200(t *testing.T, db string) {
	const n, stuck = 200, 8
	args := func(i int) map[string]any {
		if i%(n/stuck) == 0 {
			return map[string]any{"name": "search_events", "arguments": map[string]any{"sql_query": "SELECT levenshtein(repeat('a', 100000), repeat('b', 100000))"}}
		}
		return map[string]any{"name": "search_stores", "arguments": map[string]any{"sql_query": fmt.Sprintf("SELECT %d AS i, count(*) AS n FROM stores", i)}}
	}
	check := func(t *testing.T, i int, r toolResult) {
		if i%(n/stuck) == 0 {
			if !r.IsError || !strings.Contains(r.text(), `"timeout"`) {
				t.Errorf("stuck call %d: %s", i, r.text())
			}
		} else if r.IsError || !strings.Contains(r.text(), fmt.Sprintf(`"i":%d`, i)) {
			t.Errorf("call %d: %s", i, r.text())
		}
	}
	t.Run("stdio", func(t *testing.T) {
		p := startMCP(t, nil, "--db", db, "--timeout", "3s")
		p.initialize(t)
		chans := make([]chan rpcMessage, n)
		for i := range chans {
			_, chans[i] = p.start(t, "tools/call", args(i))
		}
		for i, ch := range chans {
			check(t, i, decodeToolResult(t, p.wait(t, ch)))
		}
	})
	t.Run("http", func(t *testing.T) {
		s := startMCPHTTP(t, "--db", db, "--timeout", "3s")
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				check(t, i, decodeToolResult(t, s.call(t, "tools/call", args(i))))
			}()
		}
		wg.Wait()
	})
}

// Bad lines get JSON-RPC errors and the server keeps serving; a cancelled request gets no answer.
func testStdioProtocol(t *testing.T, db string) {
	cmd := mcpCommand(t, nil, "--db", db, "--timeout", "1m", "--metrics", "127.0.0.1:0")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	write := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("write: %v\nstderr:\n%s", err, &stderr)
		}
	}
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the server stopped\nstderr:\n%s", &stderr)
			}
			return l
		case <-time.After(mcpWait):
			t.Fatalf("no answer\nstderr:\n%s", &stderr)
		}
		return ""
	}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initializeParams})
	write(string(init))
	next()
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	bad := []struct{ line, want string }{
		{`{not json}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc": "1.0", "id": 7, "method": "ping"}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,`},
		{`{"jsonrpc": "2.0", "id": 8}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,`},
		{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
	}
	for i, b := range bad {
		write(b.line)
		if got := next(); !strings.HasPrefix(got, b.want) {
			t.Errorf("%s: got %s, want %s...", b.line, got, b.want)
		}
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100+i))
		if got := next(); got != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, 100+i) {
			t.Errorf("ping after %s: %s", b.line, got)
		}
	}

	// A cancelled call: its query stops, and no answer comes for it; the next call does.
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "search_events", "arguments": map[string]any{"sql_query": slowSQL}}})
	write(string(call))
	metrics, _ := startFields(t, &stderr)["metrics"].(string)
	waitForGauge(t, metrics, "ctool_workers_busy", 1) // its query has reached a worker
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user moved on"}}`)
	stderr.waitFor(t, "the cancelled call logged", func(s string) bool { return strings.Contains(s, `"refusal":"timeout"`) })
	write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if got := next(); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("after the cancellation the server wrote %s", got)
	}
	select {
	case l := <-lines:
		t.Errorf("unexpected %s", l)
	default:
	}
}

// copyInput copies the input directory from to to, replacing old with new once in the stores file.
func copyInput(t *testing.T, from, to, old, new string) {
	t.Helper()
	ingesttest.CopyDir(t, from, to, func(name string, b []byte) []byte {
		if !strings.HasPrefix(name, "filtered_store_data") {
			return b
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s has no %q", name, old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1)
	})
}

// childPIDs maps each child process of pid to its state letter (Z for a zombie).
func childPIDs(t *testing.T, pid int) map[int]string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	kids := map[int]string{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid ...
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids[n] = f[0]
		}
	}
	return kids
}

// childProcs lists the states of pid's child processes.
func childProcs(t *testing.T, pid int) []string {
	var states []string
	for _, s := range childPIDs(t, pid) {
		states = append(states, s)
	}
	return states
}

// workersOf lists the worker processes serving the database at db, whoever their parent is now.
func workersOf(t *testing.T, db string) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(worker.CommandName)) && bytes.Contains(b, []byte(db)) {
			found = append(found, e.Name())
		}
	}
	return found
}

// waitFor polls cond, a state of the processes that tells no one when it changes, until it holds; the
// bound only keeps a broken build from hanging the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(mcpWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, mcpWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasOpen reports whether process pid has a file open whose path matches.
func hasOpen(pid int, match func(target string) bool) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && match(target) {
			return true
		}
	}
	return false
}
