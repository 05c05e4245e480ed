// Command follow measures builds published while replicas serve: two `ctool mcp --http --follow
// s3://…` replicas behind nginx follow one bucket of a real S3 server (versitygw on loopback) while
// -builds new builds are published to it, one every -gap, and -clients clients call the tools through
// nginx the whole time. It checks what an operator needs: no call fails, every answer names one build,
// and both replicas serve each new build within two -interval of its publish (the follower reads
// latest every interval, then downloads, checks and swaps). It prints a markdown report.
//
//	follow -ctool bin/ctool -versitygw PATH -input input [-clients 8] [-interval 2s] [-builds 3] [-gap 10s]
//
// Bounded: the program stops after -deadline.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

var (
	ctoolBin  = flag.String("ctool", "bin/ctool", "the ctool binary")
	gwBin     = flag.String("versitygw", "", "the versitygw binary (an S3 server)")
	inputDir  = flag.String("input", "input", "the sample input directory")
	clients   = flag.Int("clients", 8, "concurrent clients")
	interval  = flag.Duration("interval", 2*time.Second, "the replicas' --follow-interval")
	builds    = flag.Int("builds", 3, "builds published while the load runs")
	gap       = flag.Duration("gap", 10*time.Second, "time between two publishes (and before the first, and after the last)")
	callLimit = flag.Duration("call-timeout", 30*time.Second, "a client gives up on a call after this")
	deadline  = flag.Duration("deadline", 10*time.Minute, "the whole program stops after this")
)

var searches = []string{
	"SELECT store_name, category FROM stores WHERE category = 'cafe'",
	"SELECT event_name, start_date FROM events_typed WHERE is_free ORDER BY start_date",
	"SELECT product_name FROM products WHERE product_name LIKE '%セット%' LIMIT 20",
}

const (
	accessKey = "ctoolbench"
	secretKey = "ctoolbench-secret-key"
	bucket    = "ctool-bench"
)

func say(format string, args ...any) { fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...) }

func main() {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *deadline)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "follow:", err)
		os.Exit(1)
	}
}

// publishRec is one build published during the load, and when each replica first served it.
type publishRec struct {
	id      string
	took    time.Duration // ctool publish, start to exit
	done    time.Time     // when ctool publish returned
	swapped map[string]time.Duration
}

func run(ctx context.Context) error {
	if *gwBin == "" {
		return errors.New("-versitygw is required")
	}
	tmp, err := os.MkdirTemp("", "ctool-follow-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// One build to start with and one per publish, each from an input that differs in a product name.
	var paths []string
	for i := 0; i <= *builds; i++ {
		in, db := filepath.Join(tmp, fmt.Sprintf("input-%d", i)), filepath.Join(tmp, fmt.Sprintf("build-%d", i), "ctool.duckdb")
		err := benchkit.CopyFiles(*inputDir, in, nil, func(name string, b []byte) []byte {
			if i > 0 && name == "filtered_product_data.csv" {
				b = bytes.Replace(b, []byte("手巻き寿司セット 天然本鮪入り"), []byte(fmt.Sprintf("手巻き寿司セット 天然本鮪入り（%d）", i)), 1)
			}
			return b
		})
		if err != nil {
			return err
		}
		if out, err := exec.CommandContext(ctx, *ctoolBin, "ingest", "--input", in, "--db", db).CombinedOutput(); err != nil {
			return fmt.Errorf("ctool ingest: %v\n%s", err, out)
		}
		paths = append(paths, db)
	}

	gw, storeURL, err := startStore(ctx, tmp)
	if err != nil {
		return err
	}
	defer gw.Stop(syscall.SIGTERM, 10*time.Second)
	first, err := publishBuild(ctx, paths[0], storeURL)
	if err != nil {
		return err
	}
	ids := []string{first}
	say("published the first build %s to %s", first, storeURL)

	replicas := map[string]*replica{}
	for _, name := range []string{"a", "b"} {
		r, err := startReplica(ctx, name, storeURL, filepath.Join(tmp, "cache-"+name))
		if err != nil {
			return err
		}
		defer r.proc.Stop(syscall.SIGTERM, time.Minute)
		replicas[name] = r
	}
	proxy, err := benchkit.StartNginx(ctx, tmp, replicas["a"].addr, replicas["b"].addr)
	if err != nil {
		return err
	}
	defer proxy.Stop()
	say("nginx at %s in front of %s and %s", proxy.URL, replicas["a"].addr, replicas["b"].addr)

	// The load, through nginx, for the whole run.
	load := &loadStats{builds: map[string]int{}, failures: map[string]int{}}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	hc := &http.Client{Timeout: *callLimit, Transport: &http.Transport{MaxIdleConnsPerHost: *clients, DisableCompression: true}}
	start := time.Now()
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; loadCtx.Err() == nil; i++ {
				load.call(ctx, hc, proxy.URL, int64(i), searches[i%len(searches)])
			}
		}()
	}

	var pubs []*publishRec
	for i := 1; i <= *builds; i++ {
		sleep(ctx, *gap)
		say("publishing build %d of %d at %s", i, *builds, time.Since(start).Round(time.Millisecond))
		p := &publishRec{swapped: map[string]time.Duration{}}
		t0 := time.Now()
		if p.id, err = publishBuild(ctx, paths[i], storeURL); err != nil {
			stopLoad()
			wg.Wait()
			return err
		}
		ids = append(ids, p.id)
		p.done = time.Now()
		p.took = p.done.Sub(t0)
		pubs = append(pubs, p)
		// When each replica first serves it, read from its /healthz every 50 ms (for at most a gap).
		for time.Since(p.done) < *gap && len(p.swapped) < len(replicas) {
			for name, r := range replicas {
				if _, ok := p.swapped[name]; !ok && r.serving(ctx) == p.id {
					p.swapped[name] = time.Since(p.done)
				}
			}
			sleep(ctx, 50*time.Millisecond)
		}
	}
	sleep(ctx, *gap)
	stopLoad()
	wg.Wait()
	elapsed := time.Since(start)
	hc.CloseIdleConnections()

	final := map[string]string{}
	for name, r := range replicas {
		final[name] = r.serving(ctx)
	}
	report(os.Stdout, load, pubs, final, ids, elapsed)
	return check(load, pubs, final, ids)
}

// report prints the run's figures as markdown.
func report(w io.Writer, load *loadStats, pubs []*publishRec, final map[string]string, ids []string, elapsed time.Duration) {
	fmt.Fprintf(w, "| clients | calls | calls/s | p50 ms | p99 ms | failed | builds named (answers each) |\n| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	var named []string
	for i, id := range ids {
		named = append(named, fmt.Sprintf("%d %s: %d", i, id, load.builds[id]))
	}
	failed := fmt.Sprint(load.failed)
	var whys []string
	for why, n := range load.failures {
		whys = append(whys, fmt.Sprintf("%d× %s", n, why))
	}
	sort.Strings(whys)
	if len(whys) > 0 {
		failed += " (" + strings.Join(whys, ", ") + ")"
	}
	fmt.Fprintf(w, "| %d | %d | %.0f | %.1f | %.1f | %s | %s |\n\n", *clients, load.calls, float64(load.calls)/elapsed.Seconds(),
		ms(benchkit.Percentile(load.took, 50)), ms(benchkit.Percentile(load.took, 99)), failed, strings.Join(named, ", "))
	fmt.Fprintf(w, "| publish | build | ctool publish took | replica a served it after | replica b served it after | within 2 intervals (%s) |\n| ---: | --- | ---: | ---: | ---: | --- |\n", 2**interval)
	for i, p := range pubs {
		a, b := swapText(p, "a"), swapText(p, "b")
		ok := "yes"
		if !withinTwo(p) {
			ok = "**no**"
		}
		fmt.Fprintf(w, "| %d | %s | %.2f s | %s | %s | %s |\n", i+1, p.id, p.took.Seconds(), a, b, ok)
	}
	fmt.Fprintf(w, "\nAt the end replica a served %s and replica b %s; the last build published was %s.\n", final["a"], final["b"], ids[len(ids)-1])
}

func swapText(p *publishRec, name string) string {
	d, ok := p.swapped[name]
	if !ok {
		return "not within the gap"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func withinTwo(p *publishRec) bool {
	for _, name := range []string{"a", "b"} {
		if d, ok := p.swapped[name]; !ok || d > 2**interval {
			return false
		}
	}
	return true
}

func check(load *loadStats, pubs []*publishRec, final map[string]string, ids []string) error {
	var errs []string
	if load.failed > 0 {
		errs = append(errs, fmt.Sprintf("%d calls failed", load.failed))
	}
	if load.noBuild > 0 {
		errs = append(errs, fmt.Sprintf("%d answers name no build", load.noBuild))
	}
	for i, p := range pubs {
		if !withinTwo(p) {
			errs = append(errs, fmt.Sprintf("publish %d (%s): a replica did not serve it within two intervals", i+1, p.id))
		}
	}
	last := ids[len(ids)-1]
	if final["a"] != last || final["b"] != last {
		errs = append(errs, fmt.Sprintf("at the end the replicas served %s and %s, not the last build %s", final["a"], final["b"], last))
	}
	for id := range load.builds {
		known := false
		for _, k := range ids {
			known = known || k == id
		}
		if !known {
			errs = append(errs, "an answer named the unknown build "+id)
		}
	}
	if len(errs) > 0 {
		for _, e := range errs {
			say("FAILED %s", e)
		}
		return errors.New("a check failed")
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// ---------------------------------------------------------------------------------------------
// The load

type loadStats struct {
	mu       sync.Mutex
	calls    int
	failed   int
	noBuild  int
	failures map[string]int
	builds   map[string]int
	took     []time.Duration
}

func (s *loadStats) call(ctx context.Context, hc *http.Client, endpoint string, id int64, sql string) {
	c := benchkit.HTTP{URL: endpoint, Client: hc, Protocol: "2025-11-25"}
	t0 := time.Now()
	b, err := c.Send(ctx, benchkit.Encode(id, "tools/call", benchkit.ToolCall("search_stores", map[string]string{"sql_query": sql})))
	took := time.Since(t0)
	var why, build string
	var status *benchkit.StatusError
	var transport *url.Error
	switch {
	case errors.As(err, &status):
		why = fmt.Sprintf("HTTP %d", status.Code)
	case errors.As(err, &transport):
		why = "transport error"
	case err != nil:
		why = "reading the answer"
	default:
		var msg struct {
			Result *struct {
				Meta    map[string]any `json:"_meta"`
				IsError bool           `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal(b, &msg) != nil || msg.Result == nil {
			why = "not a tools/call result"
		} else if msg.Result.IsError {
			why = "an error answer: " + string(b)
		} else {
			build, _ = msg.Result.Meta["ctool/build"].(string)
		}
	}
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	switch {
	case why != "":
		s.failed++
		if len(s.failures) < 10 || s.failures[why] > 0 {
			s.failures[why]++
		}
	case build == "":
		s.noBuild++
	default:
		s.builds[build]++
		s.took = append(s.took, took)
	}
}
