// Command load drives `ctool mcp --http` on loopback with concurrent clients and checks what an
// operator needs from a rollout: during each run a new `ctool ingest` replaces the build and a query
// worker is killed from outside, and no call may fail except the intended timeouts and the killed
// worker's crashed query; every answer names exactly one build in its _meta. With -nginx it then does
// the same through two replicas behind nginx (a generated config on loopback ports, run as the
// current user), one replica drained (SIGTERM) and restarted while the load runs: no call may fail.
//
//	load -ctool bin/ctool -input input [-clients 8,32] [-duration 30s] [-nginx] > table.md
//
// Bounded: every run stops after -duration, every call after -call-timeout, and the program after
// -deadline. It prints a markdown table and exits non-zero if a check fails.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

var (
	ctoolBin    = flag.String("ctool", "bin/ctool", "the ctool binary")
	inputDir    = flag.String("input", "input", "the sample input directory")
	clientsFlag = flag.String("clients", "8,32", "concurrent clients of each run, comma-separated")
	duration    = flag.Duration("duration", 30*time.Second, "how long each run lasts")
	callTimeout = flag.Duration("call-timeout", 30*time.Second, "a client gives up on a call after this")
	serverTO    = flag.Duration("timeout", 3*time.Second, "the server's --timeout (the slow query runs past it)")
	withNginx   = flag.Bool("nginx", false, "also run through two replicas behind nginx")
	deadline    = flag.Duration("deadline", 15*time.Minute, "the whole program stops after this")
)

// The mix: the three searches in turn, and 1 call in 50 a query that runs past the server's timeout.
var searches = []struct{ tool, sql string }{
	{"search_stores", "SELECT store_name, category FROM stores WHERE category = 'cafe'"},
	{"search_events", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free ORDER BY start_date"},
	{"search_products", "SELECT product_name FROM products WHERE product_name LIKE '%セット%' LIMIT 20"},
}

const slowSQL = "SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3"

func main() {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *deadline)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func say(format string, args ...any) { fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...) }

func run(ctx context.Context) error {
	var clients []int
	for _, s := range strings.Split(*clientsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 256 {
			return fmt.Errorf("-clients %q: want numbers from 1 to 256", *clientsFlag)
		}
		clients = append(clients, n)
	}
	tmp, err := os.MkdirTemp("", "ctool-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// Two inputs that differ in one product name, so that each ingest is a new build.
	inputs := [2]string{filepath.Join(tmp, "input-a"), filepath.Join(tmp, "input-b")}
	for i, dir := range inputs {
		if err := copyInput(*inputDir, dir, i == 1); err != nil {
			return err
		}
	}
	db := filepath.Join(tmp, "ctool.duckdb")
	if err := ingest(ctx, inputs[0], db); err != nil {
		return err
	}
	fmt.Println("| setup | clients | calls | calls/s | p50 ms | p99 ms | timeouts (intended) | crashed (killed worker) | failed | builds (answers each) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	failed := false
	next := 1
	// runs runs the load once per client count, each run's ingest with the other input than the last.
	runs := func(about, plan, setup, url string, maxCrashed int, events func(in string) []event) {
		for _, n := range clients {
			say("%s, %d clients, %s: %s", about, n, *duration, plan)
			in := inputs[next%2]
			next++
			s := runLoad(ctx, url, n, events(in))
			fmt.Println(s.row(setup, n))
			if !s.ok(maxCrashed) {
				failed = true
			}
		}
	}
	srv, err := startServer(ctx, "a", db, "127.0.0.1:0")
	if err != nil {
		return err
	}
	runs("one server", "an ingest at 1/3, a worker killed at 2/3", "one server", srv.url, 1, func(in string) []event {
		return []event{
			{at: *duration / 3, what: "ingest", do: func() error { return ingest(ctx, in, db) }, newBuild: true},
			{at: *duration * 2 / 3, what: "kill a worker", do: srv.killWorker},
		}
	})
	srv.stop()

	if *withNginx {
		a, err := startServer(ctx, "a", db, benchkit.FreeAddr())
		if err != nil {
			return err
		}
		b, err := startServer(ctx, "b", db, benchkit.FreeAddr())
		if err != nil {
			a.stop()
			return err
		}
		proxy, err := benchkit.StartNginx(ctx, tmp, a.addr, b.addr)
		if err != nil {
			a.stop()
			b.stop()
			return err
		}
		say("nginx at %s in front of %s and %s", proxy.URL, a.addr, b.addr)
		runs("two replicas behind nginx", "an ingest at 1/4, replica a drained and restarted at 1/2", "2 replicas + nginx", proxy.URL, 0, func(in string) []event {
			return []event{
				{at: *duration / 4, what: "ingest", do: func() error { return ingest(ctx, in, db) }, newBuild: true},
				{at: *duration / 2, what: "drain and restart replica a", do: func() error {
					if err := a.drain(); err != nil {
						return err
					}
					var err error
					a, err = startServer(ctx, "a", db, a.addr)
					return err
				}},
			}
		})
		proxy.Stop()
		a.stop()
		b.stop()
	}
	if failed {
		return errors.New("a check failed (see the table and the lines above)")
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// The load

type event struct {
	at       time.Duration
	what     string
	do       func() error
	newBuild bool // once do returns, every call started must read the new build
}

type answer struct {
	start time.Time
	build string
}

type stats struct {
	mu        sync.Mutex
	took      []time.Duration // answered calls other than the intended timeouts
	calls     int
	timeouts  int
	crashed   int
	failed    int
	failures  map[string]int
	builds    map[string]int
	noBuild   int
	elapsed   time.Duration
	eventErrs []string
	answers   []answer
	published time.Time // when the new build's ingest returned
}

func (s *stats) fail(why string) {
	s.failed++
	if len(s.failures) < 20 || s.failures[why] > 0 {
		s.failures[why]++
	}
}

func runLoad(ctx context.Context, url string, clients int, events []event) *stats {
	s := &stats{failures: map[string]int{}, builds: map[string]int{}}
	hc := &http.Client{Timeout: *callTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	runCtx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	start := time.Now()
	var seq atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; runCtx.Err() == nil; i++ {
				n := seq.Add(1)
				tool, sql := searches[i%len(searches)].tool, searches[i%len(searches)].sql
				slow := n%50 == 0
				if slow {
					tool, sql = "search_stores", slowSQL
				}
				t0 := time.Now()
				kind, build, err := call(ctx, hc, url, n, tool, sql)
				took := time.Since(t0)
				s.mu.Lock()
				s.calls++
				switch {
				case err != nil:
					s.fail(err.Error())
				case kind == "timeout" && slow:
					s.timeouts++
				case kind == "crashed":
					s.crashed++
				case kind != "":
					s.fail("kind " + kind)
				default:
					s.took = append(s.took, took)
					if build == "" {
						s.noBuild++
					} else {
						s.builds[build]++
						s.answers = append(s.answers, answer{t0, build})
					}
				}
				s.mu.Unlock()
			}
		}()
	}
	for _, ev := range events {
		select {
		case <-time.After(time.Until(start.Add(ev.at))):
		case <-runCtx.Done():
		}
		say("  %s at %s", ev.what, time.Since(start).Round(time.Millisecond))
		err := ev.do()
		s.mu.Lock()
		if err != nil {
			s.eventErrs = append(s.eventErrs, ev.what+": "+err.Error())
		} else if ev.newBuild {
			s.published = time.Now()
		}
		s.mu.Unlock()
	}
	wg.Wait()
	s.elapsed = time.Since(start)
	return s
}

// call makes one tools/call and returns the error kind of a failed call ("" for an answer) and the
// build the answer names.
func call(ctx context.Context, hc *http.Client, endpoint string, id int64, tool, sql string) (kind, build string, err error) {
	c := benchkit.HTTP{URL: endpoint, Client: hc, Protocol: "2025-11-25"}
	b, err := c.Send(ctx, benchkit.Encode(id, "tools/call", benchkit.ToolCall(tool, map[string]string{"sql_query": sql})))
	var status *benchkit.StatusError
	var transport *url.Error
	switch {
	case errors.As(err, &status):
		return "", "", fmt.Errorf("HTTP %d", status.Code)
	case errors.As(err, &transport):
		return "", "", errors.New("transport error")
	case err != nil:
		return "", "", errors.New("reading the answer")
	}
	var msg struct {
		Result *struct {
			Meta    map[string]any `json:"_meta"`
			IsError bool           `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &msg); err != nil || msg.Result == nil {
		return "", "", errors.New("not a tools/call result")
	}
	if msg.Result.IsError {
		var e struct{ Kind string }
		if len(msg.Result.Content) == 1 {
			json.Unmarshal([]byte(msg.Result.Content[0].Text), &e)
		}
		if e.Kind == "" {
			e.Kind = "unknown"
		}
		return e.Kind, "", nil
	}
	build, _ = msg.Result.Meta["ctool/build"].(string)
	return "", build, nil
}

// ms is the p-th percentile of the answered calls' times, in milliseconds.
func (s *stats) ms(p int) float64 {
	return float64(benchkit.Percentile(s.took, p).Microseconds()) / 1000
}

func (s *stats) row(setup string, clients int) string {
	var builds []string
	for b, n := range s.builds {
		builds = append(builds, fmt.Sprintf("%s: %d", b, n))
	}
	sort.Strings(builds)
	failed := strconv.Itoa(s.failed)
	if s.failed > 0 {
		var whys []string
		for why, n := range s.failures {
			whys = append(whys, fmt.Sprintf("%d× %s", n, why))
		}
		sort.Strings(whys)
		failed += " (" + strings.Join(whys, ", ") + ")"
	}
	return fmt.Sprintf("| %s | %d | %d | %.0f | %.1f | %.1f | %d | %d | %s | %s |", setup, clients, s.calls,
		float64(s.calls)/s.elapsed.Seconds(), s.ms(50), s.ms(99), s.timeouts, s.crashed, failed, strings.Join(builds, ", "))
}

// ok checks a run: no failed call, at most maxCrashed crashed ones, every answer naming one build, and
// the new build served (two builds seen).
func (s *stats) ok(maxCrashed int) bool {
	good := true
	for what, n := range s.failures {
		say("  FAILED %d× %s", n, what)
		good = false
	}
	for _, e := range s.eventErrs {
		say("  FAILED %s", e)
		good = false
	}
	if s.crashed > maxCrashed {
		say("  FAILED %d calls crashed, at most %d expected (the killed worker's)", s.crashed, maxCrashed)
		good = false
	}
	if s.noBuild > 0 {
		say("  FAILED %d answers name no build", s.noBuild)
		good = false
	}
	if len(s.builds) != 2 {
		say("  FAILED answers from %d builds, want 2 (the old, then the new)", len(s.builds))
		good = false
	}
	after := map[string]bool{}
	for _, a := range s.answers {
		if !s.published.IsZero() && a.start.After(s.published) {
			after[a.build] = true
		}
	}
	if len(after) != 1 {
		say("  FAILED calls started after the ingest returned read %d builds, want 1 (the new one)", len(after))
		good = false
	}
	if s.timeouts == 0 {
		say("  FAILED no intended timeout came back")
		good = false
	}
	return good
}
