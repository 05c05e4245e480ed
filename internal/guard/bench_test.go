package guard

import (
	"context"
	"fmt"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/schema"
)

// benchQueries are the queries of bench/peer, one literal varying per call as there.
var benchQueries = []struct{ name, sql string }{
	{"stores", "SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-%d'"},
	{"events", "SELECT event_name, start_date, venue FROM events_typed WHERE is_free AND event_name <> 'X-%d' ORDER BY start_date"},
	{"products", "SELECT product_name, product_description FROM products WHERE product_description LIKE '%%1,000円%%' AND product_name <> 'X-%d'"},
}

// BenchmarkCheck splits the guard's cost on one warm connection: DuckDB's json_serialize_sql alone,
// the Go decoding of its output, the walk of the AST, and the whole check.
//
//	go test ./guard -run '^$' -bench Check -count 6 | benchstat -
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	conn := standIn(b)
	p := ForDataset(schema.Stores)
	for _, q := range benchQueries {
		text := fmt.Sprintf(q.sql, 1)
		b.Run(q.name+"/serialize", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			n := 0
			for b.Loop() {
				n++
				if _, _, err := conn.SerializeSQL(ctx, fmt.Sprintf(q.sql, n)); err != nil {
					b.Fatal(err)
				}
			}
		})
		out, _, err := conn.SerializeSQL(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q.name+"/decode", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				if _, err := decodeSerialized(text, out); err != nil {
					b.Fatal(err)
				}
			}
		})
		stmt, err := decodeSerialized(text, out)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q.name+"/walk", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			for b.Loop() {
				if rej := walkStatement(stmt, p); rej != nil {
					b.Fatal(rej)
				}
			}
		})
		b.Run(q.name+"/check", func(b *testing.B) {
			defer guardtest.CPUPerOp(b)()
			n := 0
			for b.Loop() {
				n++
				if _, err := Check(ctx, conn, fmt.Sprintf(q.sql, n), p, schema.RowCap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
