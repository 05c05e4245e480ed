// Command peer compares `ctool mcp` with a peer MCP database server (DBHub) on the same data, with one
// client driving both: the latency of one call at a time over stdio, in interleaved blocks, and the
// throughput of many clients over streamable HTTP, with the resident memory of each server (its process
// and its children). Every call sends a distinct SQL text: a literal in the query varies.
//
//	peer sqlite -db CTOOL.duckdb -out PEER.sqlite      # the SQLite copy of the three tables
//	peer run -ctool 'bin/ctool mcp --db DB' -peer 'dbhub --config X' [-rounds 3] ...
//
// run prints a markdown report on stdout.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "sqlite":
		err = sqliteMain(os.Args[2:])
	case "run":
		err = runMain(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: peer sqlite -db CTOOL.duckdb -out PEER.sqlite | peer run -ctool CMD -peer CMD ...")
	os.Exit(2)
}

// tables are the build's tables copied to SQLite, under the same names, so one SQL text runs on both.
var tables = []string{"stores", "events_typed", "products"}

// sqliteMain writes the SQLite copy by piping SQL to the sqlite3 command: booleans become 0/1, lists
// and structs their text, so that the benchmark's WHERE clauses mean the same on both engines.
func sqliteMain(args []string) error {
	fs := flag.NewFlagSet("sqlite", flag.ExitOnError)
	dbPath := fs.String("db", "", "the ctool build")
	out := fs.String("out", "", "the SQLite file to write (replaced)")
	fs.Parse(args)
	if *dbPath == "" || *out == "" {
		usage()
	}
	db, err := sql.Open("duckdb", *dbPath+"?access_mode=read_only")
	if err != nil {
		return err
	}
	defer db.Close()
	var script bytes.Buffer
	script.WriteString("PRAGMA journal_mode=OFF;\nBEGIN;\n")
	for _, t := range tables {
		if err := copyTable(db, t, &script); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	script.WriteString("COMMIT;\n")
	os.Remove(*out)
	cmd := exec.Command("sqlite3", *out)
	cmd.Stdin = &script
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	return cmd.Run()
}

func copyTable(db *sql.DB, table string, w *bytes.Buffer) error {
	rows, err := db.Query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", table)
	if err != nil {
		return err
	}
	var cols, exprs, defs []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return err
		}
		q := `"` + name + `"`
		cols = append(cols, q)
		switch {
		case typ == "BOOLEAN":
			exprs, defs = append(exprs, "CAST("+q+" AS INTEGER)"), append(defs, q+" INTEGER")
		case typ == "INTEGER" || typ == "BIGINT" || typ == "SMALLINT":
			exprs, defs = append(exprs, "CAST("+q+" AS BIGINT)"), append(defs, q+" INTEGER")
		case typ == "DOUBLE" || typ == "FLOAT" || strings.HasPrefix(typ, "DECIMAL"):
			exprs, defs = append(exprs, "CAST("+q+" AS DOUBLE)"), append(defs, q+" REAL")
		default:
			exprs, defs = append(exprs, "CAST("+q+" AS VARCHAR)"), append(defs, q+" TEXT")
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	if len(cols) == 0 {
		return errors.New("no such table in the build")
	}
	fmt.Fprintf(w, "CREATE TABLE %s (%s);\n", table, strings.Join(defs, ", "))
	rows, err = db.Query("SELECT " + strings.Join(exprs, ", ") + " FROM " + table)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		lits := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				lits[i] = "NULL"
			case int32, int64:
				lits[i] = fmt.Sprint(v)
			case float64:
				lits[i] = strconv.FormatFloat(v, 'g', -1, 64)
			case string:
				lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			default:
				return fmt.Errorf("unexpected %T", v)
			}
		}
		fmt.Fprintf(w, "INSERT INTO %s VALUES (%s);\n", table, strings.Join(lits, ", "))
	}
	return rows.Err()
}

// query is one of the compared queries: SQL with a %d where a literal varies, so that no two calls send
// the same text, and the tool and argument each server answers it with.
type query struct {
	name string
	sql  string
}

var queries = []query{
	{"stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
	{"events (ORDER BY)", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date"},
	{"products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'"},
}

// side is how one server is called: its tool for each query and the argument that carries the SQL.
type side struct {
	name  string
	argv  []string
	tools []string // per query
	arg   string
}

func (s side) params(q int, n int) map[string]any {
	return benchkit.ToolCall(s.tools[q], map[string]string{s.arg: fmt.Sprintf(queries[q].sql, n)})
}

func runMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	ctoolCmd := fs.String("ctool", "", "the ctool server's command line, stdio (--http ADDR is appended for HTTP)")
	peerCmd := fs.String("peer", "", "the peer's command line, stdio (--transport http --port N replaces --transport stdio for HTTP)")
	rounds := fs.Int("rounds", 3, "interleaved rounds")
	blocks := fs.Int("blocks", 10, "blocks per query per server in a round")
	block := fs.Int("block", 50, "timed calls in a block")
	warmup := fs.Int("warmup", 50, "untimed calls per query per server first")
	dur := fs.Duration("http", 5*time.Second, "how long each HTTP load runs")
	settle := fs.Duration("settle", 20*time.Second, "how long after the HTTP load the memory is read again")
	fs.Parse(args)
	if *ctoolCmd == "" || *peerCmd == "" {
		usage()
	}
	sides := []side{
		{"ctool mcp", strings.Fields(*ctoolCmd), []string{"search_stores", "search_events", "search_products"}, "sql_query"},
		{"DBHub", strings.Fields(*peerCmd), []string{"execute_sql", "execute_sql", "execute_sql"}, "sql"},
	}
	var seq atomic.Int64
	// results[round][side][query] = p50; http[round][side][clients]
	type httpRes struct {
		rate     float64
		p50, p99 time.Duration
		errs     int64
	}
	p50s := make([][][]time.Duration, *rounds)
	https := make([][][]httpRes, *rounds)
	rss := make([][]int64, *rounds)
	type after struct{ rss, pss, procs int64 }
	afters := make([][]after, *rounds)
	clientCounts := []int{8, 32}
	for r := 0; r < *rounds; r++ {
		p50s[r] = make([][]time.Duration, len(sides))
		https[r] = make([][]httpRes, len(sides))
		rss[r] = make([]int64, len(sides))
		afters[r] = make([]after, len(sides))
		// stdio: both servers up, blocks interleaved A B A B ... per query.
		var servers []*benchkit.Stdio
		for _, sd := range sides {
			s, err := benchkit.StartStdio(sd.argv, "peer", protocol)
			if err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
			defer s.Stop()
			servers = append(servers, s)
		}
		for q := range queries {
			if r == 0 {
				if err := sameRows(sides, servers, q, &seq); err != nil {
					return err
				}
			}
			times := make([][]time.Duration, len(sides))
			for i, sd := range sides {
				for k := 0; k < *warmup; k++ {
					if _, err := servers[i].Call(sd.params(q, int(seq.Add(1)))); err != nil {
						return fmt.Errorf("%s: %w", sd.name, err)
					}
				}
			}
			for b := 0; b < *blocks; b++ {
				for j := range sides {
					i := (j + b) % len(sides) // alternate which side goes first
					sd := sides[i]
					for k := 0; k < *block; k++ {
						p := sd.params(q, int(seq.Add(1)))
						start := time.Now()
						if _, err := servers[i].Call(p); err != nil {
							return fmt.Errorf("%s: %w", sd.name, err)
						}
						times[i] = append(times[i], time.Since(start))
					}
				}
			}
			for i := range sides {
				p50s[r][i] = append(p50s[r][i], benchkit.Percentile(times[i], 50))
			}
		}
		for _, s := range servers {
			s.Stop()
		}
		// HTTP: one server at a time (they share the two cores), alternating which goes first.
		for j := range sides {
			i := (j + r) % len(sides)
			sd := sides[i]
			h, err := startHTTP(sd)
			if err != nil {
				return fmt.Errorf("%s over HTTP: %w", sd.name, err)
			}
			res := make([]httpRes, len(clientCounts))
			for c, n := range clientCounts {
				times, errs, elapsed, err := h.load(sd, n, *dur, &seq)
				if err != nil {
					h.stop()
					return fmt.Errorf("%s over HTTP, %d clients: %w", sd.name, n, err)
				}
				res[c] = httpRes{float64(len(times)) / elapsed.Seconds(), benchkit.Percentile(times, 50), benchkit.Percentile(times, 99), errs}
			}
			https[r][i] = res
			rss[r][i] = h.peakRSS()
			time.Sleep(*settle)
			pid := h.proc.Cmd.Process.Pid
			afters[r][i] = after{benchkit.TreeRSS(pid), benchkit.TreePSS(pid), int64(len(benchkit.Descendants(pid)))}
			h.stop()
		}
	}
	// The report: the median over rounds of each figure, and every round's figure.
	fmt.Printf("| | %s | %s | ratio | rounds (%s; %s) |\n|---|---:|---:|---:|---|\n", sides[0].name, sides[1].name, sides[0].name, sides[1].name)
	for q := range queries {
		a := medianOf(*rounds, func(r int) float64 { return float64(p50s[r][0][q]) })
		b := medianOf(*rounds, func(r int) float64 { return float64(p50s[r][1][q]) })
		fmt.Printf("| %s query p50, stdio | %s | %s | %.2f× | %s; %s |\n", queries[q].name, msf(a), msf(b), a/b,
			each(*rounds, func(r int) string { return msf(float64(p50s[r][0][q])) }),
			each(*rounds, func(r int) string { return msf(float64(p50s[r][1][q])) }))
	}
	for c, n := range clientCounts {
		cell := func(i int) string {
			rate := medianOf(*rounds, func(r int) float64 { return https[r][i][c].rate })
			p50 := medianOf(*rounds, func(r int) float64 { return float64(https[r][i][c].p50) })
			p99 := medianOf(*rounds, func(r int) float64 { return float64(https[r][i][c].p99) })
			var errs int64
			for r := 0; r < *rounds; r++ {
				errs += https[r][i][c].errs
			}
			return fmt.Sprintf("%.0f (%s / %s), %d errors", rate, msf(p50), msf(p99), errs)
		}
		a := medianOf(*rounds, func(r int) float64 { return https[r][0][c].rate })
		b := medianOf(*rounds, func(r int) float64 { return https[r][1][c].rate })
		fmt.Printf("| HTTP, %d clients, calls/s (p50 / p99) | %s | %s | %.2f× | %s; %s |\n", n, cell(0), cell(1), a/b,
			each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", https[r][0][c].rate) }),
			each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", https[r][1][c].rate) }))
	}
	a := medianOf(*rounds, func(r int) float64 { return float64(rss[r][0]) })
	b := medianOf(*rounds, func(r int) float64 { return float64(rss[r][1]) })
	fmt.Printf("| peak memory during the HTTP loads, server + workers (sum of resident sets, sampled), MB | %.0f | %.0f | %.2f× | %s; %s |\n", a/1e6, b/1e6, a/b,
		each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(rss[r][0])/1e6) }),
		each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(rss[r][1])/1e6) }))
	for _, m := range []struct {
		what string
		f    func(after) int64
		unit float64
	}{
		{fmt.Sprintf("memory %s after the load, sum of resident sets, MB", *settle), func(a after) int64 { return a.rss }, 1e6},
		{fmt.Sprintf("memory %s after the load, sum of proportional sets (shared pages once), MB", *settle), func(a after) int64 { return a.pss }, 1e6},
		{fmt.Sprintf("processes %s after the load", *settle), func(a after) int64 { return a.procs }, 1},
	} {
		a := medianOf(*rounds, func(r int) float64 { return float64(m.f(afters[r][0])) / m.unit })
		b := medianOf(*rounds, func(r int) float64 { return float64(m.f(afters[r][1])) / m.unit })
		fmt.Printf("| %s | %.0f | %.0f | %.2f× | %s; %s |\n", m.what, a, b, a/b,
			each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(m.f(afters[r][0]))/m.unit) }),
			each(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(m.f(afters[r][1]))/m.unit) }))
	}
	fmt.Println()
	fmt.Printf("%d rounds; in each, per query, %d untimed calls per server, then %d blocks of %d calls, the servers' blocks interleaved; HTTP %s per client count per server, one server at a time.\n",
		*rounds, *warmup, *blocks, *block, *dur)
	return nil
}

// sameRows checks that both servers find the same number of rows for query q.
func sameRows(sides []side, servers []*benchkit.Stdio, q int, seq *atomic.Int64) error {
	var counts []int
	for i, sd := range sides {
		text, err := servers[i].Call(sd.params(q, int(seq.Add(1))))
		if err != nil {
			return fmt.Errorf("%s: %w", sd.name, err)
		}
		counts = append(counts, rowCount(text))
	}
	if counts[0] != counts[1] || counts[0] == 0 {
		return fmt.Errorf("%s: the servers disagree on the rows: %v", queries[q].name, counts)
	}
	return nil
}

// rowCount finds the rows in either server's answer: ctool's {"results": [...]} or DBHub's
// {"data": {"statements": [{"rows": [...]}]}}.
func rowCount(text string) int {
	var v struct {
		Results []json.RawMessage
		Data    struct {
			Statements []struct{ Rows []json.RawMessage }
		}
	}
	if json.Unmarshal([]byte(text), &v) != nil {
		return -1
	}
	n := len(v.Results)
	for _, st := range v.Data.Statements {
		n += len(st.Rows)
	}
	return n
}

func medianOf(n int, f func(int) float64) float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	sort.Float64s(v)
	return v[n/2]
}

func each(n int, f func(int) string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = f(i)
	}
	return strings.Join(s, ", ")
}

func msf(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }

// protocol is the MCP revision the client asks for: one both servers speak.
const protocol = "2025-06-18"

// httpServer is a server started on a loopback port for streamable HTTP.
type httpServer struct {
	proc *benchkit.Proc
	url  string
	peak atomic.Int64
	done chan struct{}
}

func startHTTP(sd side) (*httpServer, error) {
	argv := append([]string(nil), sd.argv...)
	var url string
	if sd.arg == "sql" { // the peer: it takes a port; find a free one
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		for i, a := range argv {
			if a == "--transport=stdio" {
				argv[i] = "--transport=http"
			}
		}
		argv = append(argv, "--host=127.0.0.1", "--port="+strconv.Itoa(port))
		url = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	} else {
		argv = append(argv, "--http", "127.0.0.1:0")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var p *benchkit.Proc
	var err error
	if url == "" {
		p, url, err = benchkit.StartServing(cmd, 30*time.Second)
	} else {
		cmd.Stderr = io.Discard
		p, err = benchkit.Start(cmd)
	}
	if err != nil {
		return nil, err
	}
	h := &httpServer{proc: p, url: url, done: make(chan struct{})}
	go h.sample()
	// Wait until it answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c := newHTTPClient(h.url)
		if err := c.Initialize(context.Background(), "peer", protocol); err == nil {
			break
		} else if time.Now().After(deadline) {
			h.stop()
			return nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return h, nil
}

// sample records the peak of the summed resident sets of the server and its descendants.
func (h *httpServer) sample() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-h.proc.Exited():
			return
		case <-t.C:
			if rss := benchkit.TreeRSS(h.proc.Cmd.Process.Pid); rss > h.peak.Load() {
				h.peak.Store(rss)
			}
		}
	}
}

func (h *httpServer) peakRSS() int64 {
	if rss := benchkit.TreeRSS(h.proc.Cmd.Process.Pid); rss > h.peak.Load() {
		h.peak.Store(rss)
	}
	return h.peak.Load()
}

func (h *httpServer) stop() {
	select {
	case <-h.done:
	default:
		close(h.done)
	}
	h.proc.Stop(os.Interrupt, 10*time.Second)
}

// load runs n clients, each with its own session, calling the three queries in turn for d.
func (h *httpServer) load(sd side, n int, d time.Duration, seq *atomic.Int64) ([]time.Duration, int64, time.Duration, error) {
	clients := make([]*benchkit.HTTP, n)
	for i := range clients {
		clients[i] = newHTTPClient(h.url)
		if err := clients[i].Initialize(context.Background(), "peer", protocol); err != nil {
			return nil, 0, 0, err
		}
	}
	// A short warm-up, untimed.
	warm := time.Now().Add(d / 5)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	var errs atomic.Int64
	var firstErr error
	run := func(until time.Time, record bool) {
		for i := range clients {
			wg.Add(1)
			go func(c *benchkit.HTTP, i int) {
				defer wg.Done()
				var mine []time.Duration
				for k := i; time.Now().Before(until); k++ {
					p := sd.params(k%len(queries), int(seq.Add(1)))
					start := time.Now()
					_, err := c.Call(context.Background(), p)
					el := time.Since(start)
					if err != nil {
						errs.Add(1)
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						continue
					}
					mine = append(mine, el)
				}
				if record {
					mu.Lock()
					all = append(all, mine...)
					mu.Unlock()
				}
			}(clients[i], i)
		}
		wg.Wait()
	}
	run(warm, false)
	errs.Store(0)
	firstErr = nil
	start := time.Now()
	run(start.Add(d), true)
	elapsed := time.Since(start)
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "peer: %s, %d clients: %d errors, the first: %v\n", sd.name, n, errs.Load(), firstErr)
	}
	return all, errs.Load(), elapsed, nil
}

var transport = &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 0}

func newHTTPClient(url string) *benchkit.HTTP {
	return &benchkit.HTTP{URL: url, Client: &http.Client{Transport: transport, Timeout: 30 * time.Second}, Protocol: protocol}
}
