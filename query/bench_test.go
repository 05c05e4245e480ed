package query_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema"
)

// BenchmarkCallCost splits one warm call of the engine into its parts, on the sample build, for the
// queries of bench/peer (a literal varies per call, as there), with DuckDB on one thread as in a query
// worker of ctool mcp:
//
//   - sql: the SQL alone on a warm connection of the file opened by the driver alone, no guard, no
//     lock-down, no row cap (the floor);
//
//   - wrapped: the statement the engine runs, SELECT * FROM query(?) LIMIT 11, on that connection;
//
//   - check: guard.Check (json_serialize_sql, decoding, the walk);
//
//   - full: Engine.Query down the full path, all of the above and the conversion of the rows (the
//     query behind a comment, which keeps it from having a shape);
//
//   - engine: Engine.Query as a query of a learned shape is answered (shape.go), its notes included;
//
//   - wire: a worker's encoding of the result and the server's decoding;
//
//   - document: the answer's JSON text, as the MCP server writes it.
//
//     go test ./query -run '^$' -bench CallCost -count 6 | benchstat -
func BenchmarkCallCost(b *testing.B) {
	ctx := context.Background()
	// One DuckDB thread, as in ctool mcp's query workers.
	path := ingesttest.Build(b, ingesttest.SampleInput(b))
	// As in a query worker of ctool mcp: one thread.
	live := database.NewLive(path, database.WithThreads(1))
	defer live.Close()
	engine := query.NewEngine(live)
	plain, err := sql.Open("duckdb", path+"?access_mode=read_only&threads=1")
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	raw, err := plain.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	build, release, err := live.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	conn, err := build.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	queries := []struct {
		name string
		d    *schema.Dataset
		sql  string
	}{
		{"stores", schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
		{"events", schema.Events, "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date"},
		{"products", schema.Products, "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'"},
		// A test on an offer's free text: its answers carry a note (hint.OfferNotes).
		{"offers", schema.Stores, "SELECT store_name, vegan_info FROM stores WHERE vegan_info LIKE '%%ヴィーガン%%' AND store_id <> 'X-%d'"},
	}
	for _, q := range queries {
		n := 0
		next := func() string { n++; return fmt.Sprintf(q.sql, n) }
		b.Run(q.name+"/sql", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				rows, err := raw.QueryContext(ctx, next())
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := querytest.Rows(rows); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/wrapped", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				rows, err := raw.QueryContext(ctx, "SELECT * FROM system.main.query(?) AS ctool_q LIMIT 11", next())
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := querytest.Rows(rows); err != nil {
					b.Fatal(err)
				}
			}
		})
		policy := guard.ForDataset(q.d)
		b.Run(q.name+"/check", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				if _, err := guard.Check(ctx, conn, next(), policy, schema.RowCap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/full", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				if _, err := engine.Query(ctx, q.d, "/* no shape */ "+next()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/engine", func(b *testing.B) {
			hits := engine.ShapeHits()
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				if _, err := engine.Query(ctx, q.d, next()); err != nil {
					b.Fatal(err)
				}
			}
			if engine.ShapeHits() == hits {
				b.Fatal("no query was answered by its shape")
			}
		})
		res, err := engine.Query(ctx, q.d, next())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q.name+"/wire", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				enc, err := worker.EncodeResult(res)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := worker.DecodeResult(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/document", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := textout.JSON(&buf, render.Document(res)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmptyAnswer is the CPU of one warm call that finds no rows, hint included, on the sample
// build with DuckDB on one thread as in a query worker; a literal varies per call, so no two calls
// ask the same:
//
//   - label: a label column's value that no row has (the vocabulary and where the word occurs in text);
//
//   - like: a LIKE on a name that matches nothing (the column's values, for the closest);
//
//   - dates: a date window after the data (the build's date range and today);
//
//   - conflict: two conditions that match rows alone but none together (the count of each part and set);
//     the third part varies, the two conditions are the same on every call;
//
//   - conflict-new: the same, each condition's literals new on every call;
//
//   - found-stores, found-events: the label and date queries' shapes when they find rows: the cost of
//     a call without a hint, for reference;
//
//   - found-hours: restaurants open at a time, which finds rows and has a note: the one store of
//     unknown hours that its other conditions let through (written from the query and checked). It
//     runs last, so the kinds before it run as they did before it was added.
//
//     go test ./query -run '^$' -bench EmptyAnswer -count 6 | benchstat -
func BenchmarkEmptyAnswer(b *testing.B) {
	ctx := context.Background()
	live := database.NewLive(ingesttest.Build(b, ingesttest.SampleInput(b)), database.WithThreads(1))
	defer live.Close()
	engine := query.NewEngine(live)
	for _, q := range []struct {
		name string
		d    *schema.Dataset
		sql  string
	}{
		{"found-stores", schema.Stores, "SELECT * FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
		{"found-events", schema.Events, "SELECT event_name FROM events_typed WHERE start_date >= DATE '2000-01-01' + %d"},
		{"label", schema.Stores, "SELECT * FROM stores WHERE category = 'nosuch%d'"},
		{"like", schema.Stores, "SELECT store_name FROM stores WHERE store_name LIKE '%%nosuch%d%%'"},
		{"dates", schema.Events, "SELECT event_name FROM events_typed WHERE start_date >= DATE '2030-01-01' + %d"},
		{"conflict", schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' AND store_name LIKE '%%鮨%%' AND store_id <> 'X-%d'"},
		{"conflict-new", schema.Stores, "SELECT store_name FROM stores WHERE category IN ('cafe', 'X-%[1]d') AND store_name IN ('鮨 つかさ 麻布台', 'X-%[1]d')"},
		{"found-hours", schema.Stores, "SELECT store_name FROM stores WHERE category = 'restaurant' AND store_id <> 'X-%d' AND is_open(store_id, TIMESTAMP '2025-10-03 19:30')"},
	} {
		n := 0
		b.Run(q.name, func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				n++
				res, err := engine.Query(ctx, q.d, fmt.Sprintf(q.sql, n))
				if err != nil {
					b.Fatal(err)
				}
				if found := strings.HasPrefix(q.name, "found-"); found != (len(res.Rows) > 0) || found != (res.Hint == "") {
					b.Fatalf("%d rows, hint %q", len(res.Rows), res.Hint)
				}
			}
		})
	}
}
