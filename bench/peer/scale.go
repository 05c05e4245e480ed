// peer scale: the big-catalogue queries on ctool, DBHub and plain DuckDB, side by side.

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

// caller is one side of the stdio comparison: a server spoken to over stdio, or the floor in process.
type caller struct {
	name  string
	begin func() error // before each block
	call  func(q query, n int) error
	rows  func(q query, n int) ([]map[string]any, error)
}

func serverCaller(sd side, s *benchkit.Stdio) *caller {
	return &caller{
		name:  sd.name,
		begin: func() error { return nil },
		call: func(q query, n int) error {
			_, err := s.Call(sd.params(q, n))
			return err
		},
		rows: func(q query, n int) ([]map[string]any, error) {
			text, err := s.Call(sd.params(q, n))
			if err != nil {
				return nil, err
			}
			return answerRows(text)
		},
	}
}

func floorCaller(f floor) *caller {
	return &caller{
		name:  fmt.Sprintf("DuckDB, %d thread%s", f.threads, map[bool]string{true: "s"}[f.threads > 1]),
		begin: f.begin,
		call: func(q query, n int) error {
			_, err := f.run(fmt.Sprintf(q.sql, n))
			return err
		},
		rows: func(q query, n int) ([]map[string]any, error) { return f.rows(fmt.Sprintf(q.sql, n)) },
	}
}

// answerRows decodes either server's rows: ctool's {"results": [...]} or DBHub's
// {"data": {"rows": [...]}} (older releases: {"data": {"statements": [{"rows": [...]}]}}).
func answerRows(text string) ([]map[string]any, error) {
	var v struct {
		Results []map[string]any
		Data    struct {
			Rows       []map[string]any
			Statements []struct{ Rows []map[string]any }
		}
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("%w: %.200s", err, text)
	}
	rows := append(v.Results, v.Data.Rows...)
	for _, st := range v.Data.Statements {
		rows = append(rows, st.Rows...)
	}
	return rows, nil
}

// agreement is what the sides must agree on for q, as text: the row count, or the sorted rows or values.
func agreement(q query, rows []map[string]any) string {
	if q.same == "" {
		return fmt.Sprintf("%d rows", len(rows))
	}
	var items []string
	for _, r := range rows {
		var b []byte
		if q.same == "*" {
			b, _ = json.Marshal(r) // keys sorted
		} else {
			b, _ = json.Marshal(r[q.same])
		}
		items = append(items, string(b))
	}
	slices.Sort(items)
	return strings.Join(items, " ")
}

func scaleMain(args []string) error {
	fs := flag.NewFlagSet("scale", flag.ExitOnError)
	ctoolCmd := fs.String("ctool", "", "the ctool server's command line, stdio (--http ADDR is appended for HTTP)")
	peerCmd := fs.String("peer", "", "DBHub's command line, stdio (--transport=http --port=N replaces --transport=stdio for HTTP)")
	dbPath := fs.String("db", "", "ctool's build, which the floor opens read-only")
	rounds := fs.Int("rounds", 3, "interleaved rounds")
	blocks := fs.Int("blocks", 6, "blocks per query per side in a round")
	block := fs.Int("block", 50, "the most timed calls in a block")
	budget := fs.Duration("budget", 3*time.Second, "about how long a side's blocks of one query take in a round: a block holds fewer calls when a call is slow, never fewer than one")
	warmup := fs.Int("warmup", 20, "untimed calls per query per side first (fewer when they take over a quarter of the budget; never fewer than two)")
	dur := fs.Duration("http", 5*time.Second, "how long each HTTP load runs")
	clients := fs.Int("clients", 32, "HTTP clients")
	peerName := fs.String("peer-name", "DBHub", "the peer's name in the report; a name starting with ctool makes the peer another ctool mcp (an A/B of two builds of ctool)")
	fs.Parse(args)
	if *ctoolCmd == "" || *peerCmd == "" || *dbPath == "" {
		usage()
	}
	qs := scaleQueries
	sides := []side{
		{"ctool mcp", strings.Fields(*ctoolCmd), true},
		{*peerName, strings.Fields(*peerCmd), strings.HasPrefix(*peerName, "ctool")},
	}
	db, err := openFloor(*dbPath)
	if err != nil {
		return fmt.Errorf("the floor: %w", err)
	}
	defer db.Close()
	floors := []*caller{floorCaller(floor{db, 1})}
	if n := runtime.NumCPU(); n > 1 {
		floors = append(floors, floorCaller(floor{db, n}))
	}
	nSides := len(sides) + len(floors)
	var seq atomic.Int64
	// times[round][side][query]: every timed call.
	times := make([][][][]time.Duration, *rounds)
	type httpRes struct {
		rate     float64
		p50, p99 time.Duration
		errs     int64
		cpu      time.Duration // CPU time of the server and its workers per call
		peak     int64
	}
	https := make([][]httpRes, *rounds)
	var names []string
	for r := 0; r < *rounds; r++ {
		times[r] = make([][][]time.Duration, nSides)
		for i := range times[r] {
			times[r][i] = make([][]time.Duration, len(qs))
		}
		var servers []*benchkit.Stdio
		var callers []*caller
		for _, sd := range sides {
			s, err := benchkit.StartStdio(sd.argv, "peer", protocol)
			if err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
			defer s.Stop()
			servers = append(servers, s)
			callers = append(callers, serverCaller(sd, s))
		}
		callers = append(callers, floors...)
		if r == 0 {
			for _, c := range callers {
				names = append(names, c.name)
			}
		}
		for q, qu := range qs {
			if r == 0 {
				if err := agree(callers, qu, &seq); err != nil {
					return err
				}
			}
			// Warm-up, which also tells how many calls of each side fit a block.
			per := make([]int, len(callers))
			for i, c := range callers {
				if err := c.begin(); err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
				var warm []time.Duration
				start := time.Now()
				for k := 0; k < 2 || (k < *warmup && time.Since(start) < *budget/4); k++ {
					t0 := time.Now()
					if err := c.call(qu, int(seq.Add(1))); err != nil {
						return fmt.Errorf("%s, %s: %w", c.name, qu.name, err)
					}
					warm = append(warm, time.Since(t0))
				}
				est := benchkit.Percentile(warm[1:], 50)
				per[i] = max(1, min(*block, int(*budget/(time.Duration(*blocks)*max(est, time.Microsecond)))))
			}
			for b := 0; b < *blocks; b++ {
				for j := range callers {
					i := (j + b) % len(callers) // rotate which side goes first
					c := callers[i]
					if err := c.begin(); err != nil {
						return fmt.Errorf("%s: %w", c.name, err)
					}
					for k := 0; k < per[i]; k++ {
						n := int(seq.Add(1))
						start := time.Now()
						if err := c.call(qu, n); err != nil {
							return fmt.Errorf("%s, %s: %w", c.name, qu.name, err)
						}
						times[r][i][q] = append(times[r][i][q], time.Since(start))
					}
				}
			}
		}
		for _, s := range servers {
			s.Stop()
		}
		// HTTP: one server at a time (they share the cores), alternating which goes first.
		https[r] = make([]httpRes, len(sides))
		for j := range sides {
			i := (j + r) % len(sides)
			sd := sides[i]
			h, err := startHTTP(sd)
			if err != nil {
				return fmt.Errorf("%s over HTTP: %w", sd.name, err)
			}
			ts, errs, elapsed, cpu, err := h.load(sd, qs, *clients, *dur, &seq)
			if err != nil {
				h.stop()
				return fmt.Errorf("%s over HTTP, %d clients: %w", sd.name, *clients, err)
			}
			res := httpRes{rate: float64(len(ts)) / elapsed.Seconds(), p50: benchkit.Percentile(ts, 50), p99: benchkit.Percentile(ts, 99), errs: errs}
			if len(ts) > 0 {
				res.cpu = cpu / time.Duration(len(ts))
			}
			res.peak = h.peakRSS()
			https[r][i] = res
			h.stop()
		}
	}

	// The report: per query, the median over rounds of each side's p50, and the p99 of every timed call.
	p50 := func(i, q int) float64 {
		return benchkit.MedianOver(*rounds, func(r int) float64 { return float64(benchkit.Percentile(times[r][i][q], 50)) })
	}
	pooled := func(i, q int) []time.Duration {
		var all []time.Duration
		for r := range times {
			all = append(all, times[r][i][q]...)
		}
		return all
	}
	fmt.Printf("| query | %s p50 / p99 | %s p50 / p99 |", names[0], names[1])
	for _, n := range names[2:] {
		fmt.Printf(" %s p50 |", n)
	}
	fmt.Printf(" ctool / DBHub | ctool / %s | rounds, p50 (%s) | timed calls (%s) |\n|---|", names[2], strings.Join(names[:3], "; "), strings.Join(names, ", "))
	fmt.Print(strings.Repeat("---:|", nSides+2) + "---|---|\n")
	for q, qu := range qs {
		fmt.Printf("| %s |", qu.name)
		for i := range names {
			if i < 2 {
				fmt.Printf(" %s / %s |", msf(p50(i, q)), msf(float64(benchkit.Percentile(pooled(i, q), 99))))
			} else {
				fmt.Printf(" %s |", msf(p50(i, q)))
			}
		}
		var each, counts []string
		for i := range names {
			if i < 3 {
				each = append(each, benchkit.EachRound(*rounds, func(r int) string { return msf(float64(benchkit.Percentile(times[r][i][q], 50))) }))
			}
			counts = append(counts, fmt.Sprint(len(pooled(i, q))))
		}
		fmt.Printf(" %.2f× | %.2f× | %s | %s |\n", p50(0, q)/p50(1, q), p50(0, q)/p50(2, q), strings.Join(each, "; "), strings.Join(counts, ", "))
	}
	fmt.Println()
	fmt.Printf("| HTTP, %d clients, the queries in turn | %s | %s | ratio | rounds (%s; %s) |\n|---|---:|---:|---:|---|\n", *clients, names[0], names[1], names[0], names[1])
	rows := []struct {
		what string
		f    func(httpRes) float64
		cell func(float64) string
	}{
		{"calls/s", func(h httpRes) float64 { return h.rate }, func(v float64) string { return fmt.Sprintf("%.1f", v) }},
		{"p50", func(h httpRes) float64 { return float64(h.p50) }, msf},
		{"p99", func(h httpRes) float64 { return float64(h.p99) }, msf},
		{"CPU per call (server and workers)", func(h httpRes) float64 { return float64(h.cpu) }, msf},
		{"peak memory (sum of resident sets, sampled), MB", func(h httpRes) float64 { return float64(h.peak) / 1e6 }, func(v float64) string { return fmt.Sprintf("%.0f", v) }},
	}
	for _, row := range rows {
		a := benchkit.MedianOver(*rounds, func(r int) float64 { return row.f(https[r][0]) })
		b := benchkit.MedianOver(*rounds, func(r int) float64 { return row.f(https[r][1]) })
		fmt.Printf("| %s | %s | %s | %.2f× | %s; %s |\n", row.what, row.cell(a), row.cell(b), a/b,
			benchkit.EachRound(*rounds, func(r int) string { return row.cell(row.f(https[r][0])) }),
			benchkit.EachRound(*rounds, func(r int) string { return row.cell(row.f(https[r][1])) }))
	}
	var errs [2]int64
	for r := range https {
		errs[0] += https[r][0].errs
		errs[1] += https[r][1].errs
	}
	fmt.Printf("| failed calls, all rounds | %d | %d | | |\n", errs[0], errs[1])
	fmt.Println()

	// The aims of issues 32 and 40, set for 1,000,000 rows (HTTP: at every size), shown at every size.
	mark := func(ok bool) string { return map[bool]string{true: "✔", false: "✘"}[ok] }
	fmt.Println("| aim | ctool's p50 over the other's | |\n|---|---:|---|")
	for q, qu := range qs {
		vs := p50(0, q) / p50(1, q)
		// The count and the searches no index serves: at least 3× faster; the price range (indexed on
		// DBHub's side, where a call is an index walk and ctool's has a worker's fixed cost): within 3×.
		aim, limit := "at least 3× faster than DBHub (≤ 0.33×)", 1.0/3
		if strings.HasPrefix(qu.name, "price") {
			aim, limit = "at most 3× DBHub's (≤ 3×)", 3
		}
		fmt.Printf("| %s: %s | %.2f× | %s |\n", qu.name, aim, vs, mark(vs <= limit))
		vf := p50(0, q) / p50(2, q)
		fmt.Printf("| %s: within 1.5× plain DuckDB, 1 thread, same statement | %.2f× | %s |\n", qu.name, vf, mark(vf <= 1.5))
	}
	a := benchkit.MedianOver(*rounds, func(r int) float64 { return https[r][0].rate })
	b := benchkit.MedianOver(*rounds, func(r int) float64 { return https[r][1].rate })
	fmt.Printf("| HTTP at %d clients: at least 2× DBHub's calls/s, no failed call (ctool's calls/s over DBHub's) | %.2f× | %s |\n", *clients, a/b, mark(a/b >= 2 && errs[0] == 0))
	peak := benchkit.MedianOver(*rounds, func(r int) float64 { return float64(https[r][0].peak) / 1e6 })
	fmt.Printf("| HTTP at %d clients: the server and its workers at most 500 MB resident, summed (peak, MB) | %.0f | %s |\n", *clients, peak, mark(peak <= 500))
	fmt.Println()
	fmt.Printf("%d rounds. In each, per query and side, up to %d untimed calls (at least 2; fewer past %s), then %d blocks, the sides' blocks interleaved and their order rotated; a block holds up to %d calls, fewer for a slow side (about %s of calls per side and query in a round, never under one call a block). p50: the median over rounds of each round's p50; p99: over every timed call of all rounds (with few calls, the slowest). HTTP %s per server per round, one server at a time.\n",
		*rounds, *warmup, *budget/4, *blocks, *block, *budget, *dur)
	return nil
}

// agree checks that every side finds the same rows for q (as q.same says) and some.
func agree(callers []*caller, q query, seq *atomic.Int64) error {
	var got []string
	for _, c := range callers {
		if err := c.begin(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		rows, err := c.rows(q, int(seq.Add(1)))
		if err != nil {
			return fmt.Errorf("%s, %s: %w", c.name, q.name, err)
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s, %s: no rows", c.name, q.name)
		}
		got = append(got, agreement(q, rows))
	}
	for i := range got[1:] {
		if got[i+1] != got[0] {
			return fmt.Errorf("%s: %s and %s disagree: %.300s against %.300s", q.name, callers[0].name, callers[i+1].name, got[0], got[i+1])
		}
	}
	return nil
}
