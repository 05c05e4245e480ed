package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/mcpserver"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// BenchmarkPoolQuery shows the worker hop alone: the same queries through a pool of one warm worker
// (this test binary, serving as ctool), with DuckDB's default threads and with the MCP workers' count,
// and through query.Engine.Query in this process. Compare the pools' ns/op with the engine's, in one
// run:
//
//	go test ./cmd/ctool -run '^$' -bench PoolQuery
func BenchmarkPoolQuery(b *testing.B) {
	db := ingesttest.Build(b, ingesttest.SampleInput(b))
	queries := []struct {
		name string
		d    *schema.Dataset
		sql  string
	}{
		{"stores", schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe'"},
		{"events", schema.Events, "SELECT event_name, start_date, venue FROM events_typed WHERE is_free ORDER BY start_date"},
	}
	ctx := context.Background()
	live := database.NewLive(db)
	defer live.Close()
	engine := query.NewEngine(live)
	type runner struct {
		name string
		run  worker.QueryFunc
	}
	runners := []runner{{"engine", engine.Query}}
	// A worker as `ctool query` starts it (DuckDB's threads per core) and as `ctool mcp` does.
	for _, threads := range []int{0, mcpserver.WorkerThreads} {
		cmd, err := worker.Command(worker.Options{DB: db, Threads: threads, WarmUp: true, LearnShapes: true, PurgeIdle: true})
		if err != nil {
			b.Fatal(err)
		}
		pool := worker.NewPool(worker.Config{Command: cmd, Size: 1, Max: 1, Grace: query.WorkerGrace})
		if err := pool.Start(ctx); err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		runners = append(runners, runner{fmt.Sprintf("pool-threads-%d", threads), pool.Query})
	}
	for _, q := range queries {
		for _, via := range runners {
			b.Run(q.name+"/"+via.name, func(b *testing.B) {
				for b.Loop() {
					// A deadline, as every MCP call has one.
					ctx, cancel := context.WithTimeout(ctx, time.Minute)
					_, err := via.run(ctx, q.d, q.sql)
					cancel()
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
