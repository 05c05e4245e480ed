package database_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard/guardtest"
)

// BenchmarkSmallBuildOptimizers: what the optimizers a small build turns off cost one query on the
// sample build, as a query worker runs it (one thread, late materialization off, the statement kept
// prepared with its literal as a parameter): "default" keeps every optimizer, "small" turns off
// database's list. Compare the two cpu-ns/op side by side in one run.
func BenchmarkSmallBuildOptimizers(b *testing.B) {
	path := ingesttest.Build(b, ingesttest.SampleInput(b))
	queries := []struct{ name, sql string }{
		{"stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> ?"},
		{"events", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> ? ORDER BY start_date"},
		{"products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%1,000円%' AND product_name <> ?"},
	}
	settings := map[string]string{
		"default": "",
		"small":   "&disabled_optimizers=" + strings.Join(database.SmallBuildDisabledOptimizers, ","),
	}
	for _, q := range queries {
		for _, name := range []string{"default", "small"} {
			b.Run(q.name+"/"+name, func(b *testing.B) {
				db, err := sql.Open("duckdb", path+"?access_mode=read_only&threads=1&late_materialization_max_rows=0"+settings[name])
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				ctx := context.Background()
				conn, err := db.Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				stmt, err := conn.PrepareContext(ctx, "SELECT * FROM ("+q.sql+") AS ctool_q LIMIT 11")
				if err != nil {
					b.Fatal(err)
				}
				defer stmt.Close()
				n := 0
				defer guardtest.CPUPerOp(b)()
				for b.Loop() {
					n++
					rows, err := stmt.QueryContext(ctx, fmt.Sprintf("X-%d", n))
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
