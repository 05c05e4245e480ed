// Command mcpcalls is the MCP benchmark: the latency of each tool called on a running `ctool mcp`
// (stdio, one call at a time, as an agent makes them), against the same call made the bash-tool way,
// as a `ctool query ... --format json` or `ctool profile` process. It prints a markdown table of the
// median (p50) and 99th percentile (p99) of each, and, to show where an MCP call's time goes, the
// same work done in this process without MCP (engine.Query: guard, row cap and query; profile Find)
// and the SQL alone, run straight on the open build.
//
//	mcpcalls -ctool bin/ctool -db DB [-calls 2000] [-procs 100] [-warmup 20]
//
// Before timing, each tool's answer over MCP must be the process's output byte for byte.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/profile"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema"
)

// call is one tool call and the command line that answers it as a process.
type call struct {
	tool    string
	args    map[string]string
	argv    []string        // after the ctool binary
	dataset *schema.Dataset // the search tools' dataset; nil for get_user_profile
	label   string          // the table's name for the call, when not the tool's
}

func calls(db string) []call {
	query := func(d *schema.Dataset, sql string) call {
		return call{d.Tool, map[string]string{"sql_query": sql}, []string{"query", d.Name, "--db", db, "--format", "json", "--", sql}, d, ""}
	}
	calls := []call{
		// The products and stores queries of bench/query.sh, an events query, and a profile.
		query(schema.Products, "SELECT product_name, product_description FROM 'filtered_product_data.csv' WHERE product_description LIKE '%1,000円%'"),
		query(schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe'"),
		query(schema.Events, "SELECT event_name, start_date, venue FROM events_typed WHERE is_free ORDER BY start_date"),
		{"get_user_profile", map[string]string{"profile_id": "user_criollo_heavy"}, []string{"profile", "--db", db, "--format", "json", "--", "user_criollo_heavy"}, nil, ""},
	}
	// A query that finds nothing pays for the probes behind its hint (the label 'カフェ' for 'cafe');
	// the calls above find rows and pay nothing for them. Not counted in the aims below.
	miss := query(schema.Stores, "SELECT store_name FROM stores WHERE category = 'カフェ'")
	miss.label = "search_stores, nothing matched (hint)"
	return append(calls, miss)
}

func main() {
	ctool := flag.String("ctool", "bin/ctool", "the ctool binary")
	db := flag.String("db", "", "the database (built by ctool ingest)")
	n := flag.Int("calls", 2000, "timed MCP calls per tool")
	procs := flag.Int("procs", 100, "timed processes per tool")
	warmup := flag.Int("warmup", 20, "untimed calls (and processes) per tool first")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "usage: mcpcalls -ctool bin/ctool -db DB [-calls N] [-procs N] [-warmup N]")
		os.Exit(2)
	}
	if err := run(*ctool, *db, *n, *procs, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcalls:", err)
		os.Exit(1)
	}
}

func run(ctool, db string, n, procs, warmup int) error {
	s, err := startServer(ctool, db)
	if err != nil {
		return err
	}
	defer s.stop()
	floor, err := timeProcess(ctool, []string{"--version"}, warmup, procs)
	if err != nil {
		return err
	}
	// The same work in this process, without MCP: where an MCP call's time goes.
	live := database.NewLive(db)
	defer live.Close()
	engine := query.NewEngine(live)
	finder, err := profile.NewFinder(live, "")
	if err != nil {
		return err
	}
	ctx := context.Background()

	fmt.Println("| tool | MCP call p50 | MCP call p99 | process p50 | process p99 | process p50 / MCP p50 | in-process p50: engine.Query or Find | SQL alone p50 |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var worstP50 time.Duration
	minRatio := 0.0
	for _, c := range calls(db) {
		// The same answer both ways, so both sides provably do the same work.
		out, err := exec.Command(ctool, c.argv...).Output()
		if err != nil {
			return fmt.Errorf("%s as a process: %w", c.tool, err)
		}
		text, err := s.call(c)
		if err != nil {
			return err
		}
		// A process ends its output with a newline, as a command's output does; the MCP text has none.
		if text != strings.TrimSuffix(string(out), "\n") {
			return fmt.Errorf("%s: the MCP answer differs from the process's output:\n%s\n---\n%s", c.tool, text, out)
		}
		mcp, err := timeCalls(warmup, n, func() error { _, err := s.call(c); return err })
		if err != nil {
			return err
		}
		proc, err := timeProcess(ctool, c.argv, warmup, procs)
		if err != nil {
			return err
		}
		var inProcess, alone []time.Duration
		if c.dataset == nil {
			inProcess, err = timeCalls(warmup, n, func() error { _, err := finder.Find(ctx, c.args["profile_id"]); return err })
		} else {
			inProcess, err = timeCalls(warmup, n, func() error { _, err := engine.Query(ctx, c.dataset, c.args["sql_query"]); return err })
			if err == nil {
				alone, err = timeSQL(ctx, live, "SELECT * FROM ("+c.args["sql_query"]+") LIMIT 11", warmup, n)
			}
		}
		if err != nil {
			return err
		}
		ratio := float64(pct(proc, 50)) / float64(pct(mcp, 50))
		aloneP50 := "n/a"
		if alone != nil {
			aloneP50 = ms(pct(alone, 50))
		}
		name := c.tool
		if c.label != "" {
			name = c.label
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %.0f× | %s | %s |\n", name, ms(pct(mcp, 50)), ms(pct(mcp, 99)),
			ms(pct(proc, 50)), ms(pct(proc, 99)), ratio, ms(pct(inProcess, 50)), aloneP50)
		if c.label != "" {
			continue
		}
		worstP50 = max(worstP50, pct(mcp, 50))
		if minRatio == 0 || ratio < minRatio {
			minRatio = ratio
		}
	}
	// The floors: a ping answered by the server (the transport alone), a process that only starts.
	pings, err := timeCalls(warmup, n, func() error { _, err := s.request("ping", map[string]any{}); return err })
	if err != nil {
		return err
	}
	fmt.Printf("| floor: MCP `ping`, `ctool --version` | %s | %s | %s | %s | | | |\n\n", ms(pct(pings, 50)), ms(pct(pings, 99)), ms(pct(floor, 50)), ms(pct(floor, 99)))
	fmt.Printf("%d timed MCP calls (and in-process calls) and %d timed processes per tool, after %d untimed ones; calls one at a time.\n", n, procs, warmup)
	fmt.Printf("Slowest MCP p50: %s (aim ≤ 2 ms: %s). Smallest process/MCP ratio of p50s: %.0f× (aim ≥ 20×: %s).\n",
		ms(worstP50), verdict(worstP50 <= 2*time.Millisecond), minRatio, verdict(minRatio >= 20))
	return nil
}

// timeCalls calls f warmup times, then times it n times.
func timeCalls(warmup, n int, f func() error) ([]time.Duration, error) {
	times := make([]time.Duration, 0, n)
	for i := 0; i < warmup+n; i++ {
		start := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		if i >= warmup {
			times = append(times, time.Since(start))
		}
	}
	return times, nil
}

// timeSQL times sqlText run straight on the open build, no guard: what the query itself costs.
func timeSQL(ctx context.Context, live *database.Live, sqlText string, warmup, n int) ([]time.Duration, error) {
	b, release, err := live.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return timeCalls(warmup, n, func() error {
		rows, err := b.DB().QueryContext(ctx, sqlText)
		if err != nil {
			return err
		}
		_, _, err = querytest.Rows(rows)
		return err
	})
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// timeProcess runs ctool argv warmup times, then times it procs times.
func timeProcess(ctool string, argv []string, warmup, procs int) ([]time.Duration, error) {
	var times []time.Duration
	for i := 0; i < warmup+procs; i++ {
		cmd := exec.Command(ctool, argv...)
		cmd.Stdout = io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("ctool %s: %w", strings.Join(argv, " "), err)
		}
		if i >= warmup {
			times = append(times, time.Since(start))
		}
	}
	return times, nil
}

// pct is the p-th percentile (nearest rank) of times.
func pct(times []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := (len(s)*p + 99) / 100
	return s[max(rank-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// server is `ctool mcp` on stdio, spoken to in raw JSON-RPC, one request at a time.
type server struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	next int
}

func startServer(ctool, db string) (*server, error) {
	cmd := exec.Command(ctool, "mcp", "--db", db)
	cmd.Stderr = io.Discard // one log line per call
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	s.out.Buffer(make([]byte, 1<<20), 16<<20)
	if _, err := s.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpcalls", "version": "1"}}); err != nil {
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *server) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

func (s *server) request(method string, params any) (json.RawMessage, error) {
	s.next++
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for s.out.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(s.out.Bytes(), &msg); err != nil || msg.ID == nil || *msg.ID != s.next {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, msg.Error)
		}
		return msg.Result, nil
	}
	return nil, fmt.Errorf("%s: ctool mcp closed its output: %v", method, s.out.Err())
}

// call makes a tool call and returns its text content.
func (s *server) call(c call) (string, error) {
	raw, err := s.request("tools/call", map[string]any{"name": c.tool, "arguments": c.args})
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct{ Text string }
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 || res.IsError {
		return "", fmt.Errorf("%s: %s", c.tool, raw)
	}
	return res.Content[0].Text, nil
}

func (s *server) stop() {
	s.in.Close()
	s.cmd.Wait()
}
