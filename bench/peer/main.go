// Command peer compares `ctool mcp` with a peer MCP database server (DBHub) on the same data, with one
// client driving both: the latency of one call at a time over stdio, in interleaved blocks, and the
// throughput of many clients over streamable HTTP, with the resident memory of each server (its process
// and its children). Every call sends a distinct SQL text: a literal in the query varies.
//
//	peer sqlite -db CTOOL.duckdb -out PEER.sqlite [-tables a,b] [-index 't(col)'] [-analyze]
//	peer run -ctool 'bin/ctool mcp --db DB' -peer 'dbhub --config X' [-rounds 3] ...
//	peer scale -ctool 'bin/ctool mcp --db DB' -peer 'dbhub --config X' -db DB [-rounds 3] ...
//
// run compares the sample's three queries; scale the big-catalogue queries (queries.go), with plain
// DuckDB on the build, in this process, as a third and fourth side: the floor. Both print a markdown
// report on stdout.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
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
	case "scale":
		err = scaleMain(os.Args[2:])
	case "http":
		err = httpMain(os.Args[2:])
	case "queries": // the scale queries, for the report
		for _, q := range scaleQueries {
			fmt.Printf("%s: `%s`\n", q.name, strings.ReplaceAll(q.sql, "%%", "%"))
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: peer sqlite -db CTOOL.duckdb -out PEER.sqlite ... | peer run -ctool CMD -peer CMD ... | peer scale -ctool CMD -peer CMD -db CTOOL.duckdb ... | peer http -ctool CMD [-clients N] [-http D]")
	os.Exit(2)
}

// tables are the build's tables copied to SQLite, under the same names, so one SQL text runs on both.
var tables = []string{"stores", "events_typed", "products"}

// side is how one server is called: ctool answers each query with the query's own tool and sql_query,
// any other peer with DBHub's execute_sql and sql.
type side struct {
	name  string
	argv  []string
	ctool bool
}

func (s side) params(q query, n int) map[string]any {
	text := fmt.Sprintf(q.sql, n)
	if s.ctool {
		return benchkit.ToolCall(q.tool, map[string]string{"sql_query": text})
	}
	return benchkit.ToolCall("execute_sql", map[string]string{"sql": text})
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
	peerName := fs.String("peer-name", "DBHub", "the peer's name in the report; a name starting with ctool makes the peer another ctool mcp (bench/isolation.sh)")
	fs.Parse(args)
	if *ctoolCmd == "" || *peerCmd == "" {
		usage()
	}
	sides := []side{
		{"ctool mcp", strings.Fields(*ctoolCmd), true},
		{*peerName, strings.Fields(*peerCmd), strings.HasPrefix(*peerName, "ctool")},
	}
	var seq atomic.Int64
	// results[round][side][query] = p50; http[round][side][clients]
	type httpRes struct {
		rate     float64
		p50, p99 time.Duration
		errs     int64
		cpu      time.Duration // CPU time of the server and its workers per call
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
					if _, err := servers[i].Call(sd.params(queries[q], int(seq.Add(1)))); err != nil {
						return fmt.Errorf("%s: %w", sd.name, err)
					}
				}
			}
			for b := 0; b < *blocks; b++ {
				for j := range sides {
					i := (j + b) % len(sides) // alternate which side goes first
					sd := sides[i]
					for k := 0; k < *block; k++ {
						p := sd.params(queries[q], int(seq.Add(1)))
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
				times, errs, elapsed, cpu, err := h.load(sd, queries, n, *dur, &seq)
				if err != nil {
					h.stop()
					return fmt.Errorf("%s over HTTP, %d clients: %w", sd.name, n, err)
				}
				res[c] = httpRes{float64(len(times)) / elapsed.Seconds(), benchkit.Percentile(times, 50), benchkit.Percentile(times, 99), errs, 0}
				if len(times) > 0 {
					res[c].cpu = cpu / time.Duration(len(times))
				}
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
		a := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(p50s[r][0][q]) })
		b := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(p50s[r][1][q]) })
		fmt.Printf("| %s query p50, stdio | %s | %s | %.2f× | %s; %s |\n", queries[q].name, msf(a), msf(b), a/b,
			benchkit.EachRound(*rounds, func(r int) string { return msf(float64(p50s[r][0][q])) }),
			benchkit.EachRound(*rounds, func(r int) string { return msf(float64(p50s[r][1][q])) }))
	}
	for c, n := range clientCounts {
		cell := func(i int) string {
			rate := benchkit.MedianOver(*rounds, func(r int) float64 { return https[r][i][c].rate })
			p50 := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(https[r][i][c].p50) })
			p99 := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(https[r][i][c].p99) })
			var errs int64
			for r := 0; r < *rounds; r++ {
				errs += https[r][i][c].errs
			}
			return fmt.Sprintf("%.0f (%s / %s), %d errors", rate, msf(p50), msf(p99), errs)
		}
		a := benchkit.MedianOver(*rounds, func(r int) float64 { return https[r][0][c].rate })
		b := benchkit.MedianOver(*rounds, func(r int) float64 { return https[r][1][c].rate })
		fmt.Printf("| HTTP, %d clients, calls/s (p50 / p99) | %s | %s | %.2f× | %s; %s |\n", n, cell(0), cell(1), a/b,
			benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", https[r][0][c].rate) }),
			benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", https[r][1][c].rate) }))
		ca := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(https[r][0][c].cpu) })
		cb := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(https[r][1][c].cpu) })
		fmt.Printf("| HTTP, %d clients, CPU per call (server and workers) | %s | %s | %.2f× | %s; %s |\n", n, msf(ca), msf(cb), ca/cb,
			benchkit.EachRound(*rounds, func(r int) string { return msf(float64(https[r][0][c].cpu)) }),
			benchkit.EachRound(*rounds, func(r int) string { return msf(float64(https[r][1][c].cpu)) }))
	}
	a := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(rss[r][0]) })
	b := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(rss[r][1]) })
	fmt.Printf("| peak memory during the HTTP loads, server + workers (sum of resident sets, sampled), MB | %.0f | %.0f | %.2f× | %s; %s |\n", a/1e6, b/1e6, a/b,
		benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(rss[r][0])/1e6) }),
		benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(rss[r][1])/1e6) }))
	for _, m := range []struct {
		what string
		f    func(after) int64
		unit float64
	}{
		{fmt.Sprintf("memory %s after the load, sum of resident sets, MB", *settle), func(a after) int64 { return a.rss }, 1e6},
		{fmt.Sprintf("memory %s after the load, sum of proportional sets (shared pages once), MB", *settle), func(a after) int64 { return a.pss }, 1e6},
		{fmt.Sprintf("processes %s after the load", *settle), func(a after) int64 { return a.procs }, 1},
	} {
		a := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(m.f(afters[r][0])) / m.unit })
		b := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(m.f(afters[r][1])) / m.unit })
		fmt.Printf("| %s | %.0f | %.0f | %.2f× | %s; %s |\n", m.what, a, b, a/b,
			benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(m.f(afters[r][0]))/m.unit) }),
			benchkit.EachRound(*rounds, func(r int) string { return fmt.Sprintf("%.0f", float64(m.f(afters[r][1]))/m.unit) }))
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
		text, err := servers[i].Call(sd.params(queries[q], int(seq.Add(1))))
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

func msf(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }
