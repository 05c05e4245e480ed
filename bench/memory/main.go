// Command memory measures what `ctool mcp --http` holds and how fast it answers: HTTP loads of 1, 8
// and 32 clients (each its own session, the three peer queries in turn, a distinct SQL text per call),
// the peak of the summed resident sets of the server and its workers during them, and each process's
// resident set split into file-backed and anonymous pages, with its proportional set, once the load
// has been over for -settle.
//
//	memory run -ctool 'bin/ctool mcp --db DB' [-rounds 3] [-clients 1,8,32] [-http 5s] [-settle 20s]
//	memory probe -db DB [-calls 3000]   # one worker's engine in this process: Go heap and duckdb_memory()
//	memory load -url URL -pid PID [-clients 8] [-http 5s]   # load a running server, print the figures
//
// run prints a markdown report on stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runMain(os.Args[2:])
	case "probe":
		err = probeMain(os.Args[2:])
	case "load":
		err = loadMain(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: memory run -ctool CMD [-rounds N -clients 1,8,32 -http 5s -settle 20s] | memory probe -db DB")
	os.Exit(2)
}

// queries are bench/peer's, so that the figures compare.
var queries = []struct{ tool, sql string }{
	{"search_stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
	{"search_events", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date"},
	{"search_products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'"},
}

const protocol = "2025-06-18"

// stuckEvery makes 1 call in N stuckSQL, which runs until the server's --timeout stops it; its
// answer (kind timeout) is counted apart, not timed.
var stuckEvery int

const stuckSQL = "SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3"

// load is one client count's figures.
type load struct {
	rate     float64
	p50, p99 time.Duration
	errs     int64
	peak     int64 // summed resident sets, bytes
	procs    int   // the most processes seen
}

// mem is one process's memory, bytes.
type mem struct {
	rss, anon, file, pss int64
}

func runMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	ctoolCmd := fs.String("ctool", "", "the server's command line (--http 127.0.0.1:0 is appended)")
	baseCmd := fs.String("base", "", "another server's command line, run in the same rounds, its order alternating")
	rounds := fs.Int("rounds", 3, "rounds, each with a fresh server")
	clientList := fs.String("clients", "1,8,32", "client counts, loaded in this order")
	dur := fs.Duration("http", 5*time.Second, "how long each load runs (after a fifth of it untimed)")
	settle := fs.Duration("settle", 20*time.Second, "how long after the last load the memory is read")
	fs.IntVar(&stuckEvery, "stuck", 0, "make 1 call in N a query that runs past the server's --timeout (0: none)")
	fs.Parse(args)
	if *ctoolCmd == "" {
		usage()
	}
	var counts []int
	for _, f := range strings.Split(*clientList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-clients %q", *clientList)
		}
		counts = append(counts, n)
	}
	sides := []*side{{name: "ctool", cmd: *ctoolCmd}}
	if *baseCmd != "" {
		sides = append(sides, &side{name: "base", cmd: *baseCmd})
	}
	for r := range *rounds {
		for j := range sides {
			sd := sides[(j+r)%len(sides)]
			fmt.Fprintf(os.Stderr, "memory: round %d, %s, load average %s\n", r+1, sd.name, loadavg())
			if err := sd.round(counts, *dur, *settle); err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
		}
	}
	report(sides, counts, *settle)
	return nil
}

// side is one server command and its figures, one entry per round.
type side struct {
	name, cmd   string
	loads       [][]load
	idle, after [][]mem // after start, before any load; settle after the loads
}

// round starts the server, loads it with each client count in turn, and reads its memory settle after.
func (sd *side) round(counts []int, dur, settle time.Duration) error {
	argv := append(strings.Fields(sd.cmd), "--http", "127.0.0.1:0")
	p, url, err := benchkit.StartServing(exec.Command(argv[0], argv[1:]...), 60*time.Second)
	if err != nil {
		return err
	}
	defer p.Stop(os.Interrupt, 10*time.Second)
	pid := p.Cmd.Process.Pid
	time.Sleep(time.Second)
	sd.idle = append(sd.idle, tree(pid))
	var ls []load
	for _, n := range counts {
		l, err := runLoad(url, pid, n, dur)
		if err != nil {
			return fmt.Errorf("%d clients: %w", n, err)
		}
		ls = append(ls, l)
	}
	sd.loads = append(sd.loads, ls)
	time.Sleep(settle)
	sd.after = append(sd.after, tree(pid))
	return nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func loadMain(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	url := fs.String("url", "", "the server's MCP URL")
	pid := fs.Int("pid", 0, "the server's process id, for its memory")
	n := fs.Int("clients", 8, "clients")
	dur := fs.Duration("http", 5*time.Second, "how long the load runs (after a fifth of it untimed)")
	fs.IntVar(&stuckEvery, "stuck", 0, "make 1 call in N a query that runs past the server's --timeout (0: none)")
	fs.Parse(args)
	l, err := runLoad(*url, *pid, *n, *dur)
	if err != nil {
		return err
	}
	fmt.Printf("%d clients: %.0f calls/s, p50 %s ms, p99 %s ms, %d errors, peak summed RSS %s MB, %d processes\n",
		*n, l.rate, msf(l.p50), msf(l.p99), l.errs, mb(l.peak), l.procs)
	return nil
}

// runLoad runs n clients for d after d/5 untimed, sampling the summed resident sets every 50 ms.
func runLoad(url string, pid, n int, d time.Duration) (load, error) {
	clients := make([]*benchkit.HTTP, n)
	for i := range clients {
		clients[i] = newClient(url)
		if err := clients[i].Initialize(context.Background(), "memory", protocol); err != nil {
			return load{}, err
		}
	}
	var l load
	sampler := benchkit.SampleTree(pid, 50*time.Millisecond)
	var seq atomic.Int64
	next := func(c *benchkit.HTTP, k int) map[string]any {
		q := queries[k%len(queries)]
		p := benchkit.ToolCall(q.tool, map[string]string{"sql_query": fmt.Sprintf(q.sql, seq.Add(1))})
		if n := seq.Load(); stuckEvery > 0 && n%int64(stuckEvery) == 0 {
			c.Call(context.Background(), benchkit.ToolCall("search_stores", map[string]string{"sql_query": stuckSQL}))
			return nil
		}
		return p
	}
	benchkit.ClosedLoop(clients, time.Now().Add(d/5), next) // a short warm-up, untimed
	start := time.Now()
	r := benchkit.ClosedLoop(clients, start.Add(d), next)
	elapsed := time.Since(start)
	l.peak, l.procs = sampler.Stop()
	if r.FirstErr != nil {
		fmt.Fprintf(os.Stderr, "memory: %d clients: %d errors, the first: %v\n", n, r.Errors, r.FirstErr)
	}
	all := r.Times
	l.rate = float64(len(all)) / elapsed.Seconds()
	l.p50, l.p99 = benchkit.Percentile(all, 50), benchkit.Percentile(all, 99)
	l.errs = r.Errors
	return l, nil
}

func newClient(url string) *benchkit.HTTP {
	return &benchkit.HTTP{URL: url, Client: &http.Client{Transport: transport, Timeout: 30 * time.Second}, Protocol: protocol}
}

var transport = &http.Transport{MaxIdleConnsPerHost: 128}

// tree reads the memory of pid and its descendants, in that order.
func tree(pid int) []mem {
	var out []mem
	for _, p := range benchkit.Descendants(pid) {
		m, err := smaps(p)
		if err == nil {
			out = append(out, m)
		}
	}
	return out
}

// smaps reads one process's smaps_rollup: Rss, Anonymous (the rest of Rss is file-backed: the
// binary's code and data) and Pss.
func smaps(pid int) (mem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return mem{}, err
	}
	var m mem
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Rss:":
			m.rss = kb << 10
		case "Pss:":
			m.pss = kb << 10
		case "Anonymous:":
			m.anon = kb << 10
		}
	}
	if m.rss == 0 {
		return mem{}, errors.New("no Rss")
	}
	m.file = m.rss - m.anon
	return m, nil
}

func mb(b int64) string { return fmt.Sprintf("%.0f", float64(b)/1e6) }

func msf(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/1e6) }

func sum(ms []mem, f func(mem) int64) int64 {
	var t int64
	for _, m := range ms {
		t += f(m)
	}
	return t
}

func report(sides []*side, counts []int, settle time.Duration) {
	n := len(sides[0].loads)
	fmt.Print("| |")
	for _, sd := range sides {
		fmt.Printf(" %s |", sd.name)
	}
	fmt.Print(" rounds (")
	for i, sd := range sides {
		if i > 0 {
			fmt.Print("; ")
		}
		fmt.Print(sd.name)
	}
	fmt.Print(") |\n|---|")
	for range sides {
		fmt.Print("---:|")
	}
	fmt.Println("---|")
	row := func(what string, cell func(sd *side) string, round func(sd *side, r int) string) {
		fmt.Printf("| %s |", what)
		var rounds []string
		for _, sd := range sides {
			fmt.Printf(" %s |", cell(sd))
			rounds = append(rounds, benchkit.EachRound(n, func(r int) string { return round(sd, r) }))
		}
		fmt.Printf(" %s |\n", strings.Join(rounds, "; "))
	}
	for c, k := range counts {
		row(fmt.Sprintf("%d clients: calls/s, p50 / p99 ms", k), func(sd *side) string {
			var errs int64
			for r := range n {
				errs += sd.loads[r][c].errs
			}
			return fmt.Sprintf("%.0f, %.1f / %.1f, %d errors",
				benchkit.MedianOver(n, func(r int) float64 { return sd.loads[r][c].rate }),
				benchkit.MedianOver(n, func(r int) float64 { return float64(sd.loads[r][c].p50) / 1e6 }),
				benchkit.MedianOver(n, func(r int) float64 { return float64(sd.loads[r][c].p99) / 1e6 }), errs)
		}, func(sd *side, r int) string {
			l := sd.loads[r][c]
			return fmt.Sprintf("%.0f %s/%s", l.rate, msf(l.p50), msf(l.p99))
		})
		row(fmt.Sprintf("%d clients: peak summed RSS, MB (most processes)", k), func(sd *side) string {
			return fmt.Sprintf("%.0f", benchkit.MedianOver(n, func(r int) float64 { return float64(sd.loads[r][c].peak) / 1e6 }))
		}, func(sd *side, r int) string {
			return fmt.Sprintf("%s (%d)", mb(sd.loads[r][c].peak), sd.loads[r][c].procs)
		})
	}
	for _, when := range []struct {
		what string
		ms   func(sd *side) [][]mem
	}{
		{"after start", func(sd *side) [][]mem { return sd.idle }},
		{fmt.Sprintf("%s after the loads", settle), func(sd *side) [][]mem { return sd.after }},
	} {
		for _, f := range []struct {
			what string
			f    func(mem) int64
		}{
			{"summed RSS", func(m mem) int64 { return m.rss }},
			{"summed PSS", func(m mem) int64 { return m.pss }},
			{"anonymous", func(m mem) int64 { return m.anon }},
			{"file-backed", func(m mem) int64 { return m.file }},
		} {
			row(fmt.Sprintf("%s: %s, MB", when.what, f.what), func(sd *side) string {
				return fmt.Sprintf("%.0f", benchkit.MedianOver(n, func(r int) float64 { return float64(sum(when.ms(sd)[r], f.f)) / 1e6 }))
			}, func(sd *side, r int) string { return mb(sum(when.ms(sd)[r], f.f)) })
		}
		row(fmt.Sprintf("%s: processes (each anonymous + file-backed MB, server first)", when.what), func(sd *side) string {
			return fmt.Sprintf("%.0f", benchkit.MedianOver(n, func(r int) float64 { return float64(len(when.ms(sd)[r])) }))
		}, func(sd *side, r int) string {
			var p []string
			for _, m := range when.ms(sd)[r] {
				p = append(p, mb(m.anon)+"+"+mb(m.file))
			}
			return strings.Join(p, " ")
		})
	}
}
