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
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/profile"
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
	defer s.Stop()
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
		// The process ends its output with a newline, as a line of a terminal; the MCP text has none.
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
				alone, err = timeSQL(ctx, db, "SELECT * FROM ("+c.args["sql_query"]+") LIMIT 11", warmup, n)
			}
		}
		if err != nil {
			return err
		}
		ratio := float64(benchkit.Percentile(proc, 50)) / float64(benchkit.Percentile(mcp, 50))
		aloneP50 := "n/a"
		if alone != nil {
			aloneP50 = ms(benchkit.Percentile(alone, 50))
		}
		name := c.tool
		if c.label != "" {
			name = c.label
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %.0f× | %s | %s |\n", name, ms(benchkit.Percentile(mcp, 50)), ms(benchkit.Percentile(mcp, 99)),
			ms(benchkit.Percentile(proc, 50)), ms(benchkit.Percentile(proc, 99)), ratio, ms(benchkit.Percentile(inProcess, 50)), aloneP50)
		if c.label != "" {
			continue
		}
		worstP50 = max(worstP50, benchkit.Percentile(mcp, 50))
		if minRatio == 0 || ratio < minRatio {
			minRatio = ratio
		}
	}
	// The floors: a ping answered by the server (the transport alone), a process that only starts.
	pings, err := timeCalls(warmup, n, func() error { _, err := s.Request("ping", map[string]any{}); return err })
	if err != nil {
		return err
	}
	fmt.Printf("| floor: MCP `ping`, `ctool --version` | %s | %s | %s | %s | | | |\n\n", ms(benchkit.Percentile(pings, 50)), ms(benchkit.Percentile(pings, 99)), ms(benchkit.Percentile(floor, 50)), ms(benchkit.Percentile(floor, 99)))
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

// timeSQL times sqlText run straight on the build file, opened read-only by the driver alone with
// DuckDB on one thread: no guard, no lock-down, what the query itself costs.
func timeSQL(ctx context.Context, path, sqlText string, warmup, n int) ([]time.Duration, error) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only&threads=1")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return timeCalls(warmup, n, func() error {
		rows, err := db.QueryContext(ctx, sqlText)
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

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// server is `ctool mcp` on stdio.
type server struct{ *benchkit.Stdio }

func startServer(ctool, db string) (server, error) {
	s, err := benchkit.StartStdio([]string{ctool, "mcp", "--db", db}, "mcpcalls", "2025-11-25")
	return server{s}, err
}

// call makes a tool call and returns its text content.
func (s server) call(c call) (string, error) {
	text, err := s.Call(benchkit.ToolCall(c.tool, c.args))
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.tool, err)
	}
	return text, nil
}
