package worker

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// A result read by a query worker must arrive as the engine made it: every value kind DuckDB gives,
// with its Go type, nesting and object member order.
func TestResultRoundTrip(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	defer live.Close()
	e := query.NewEngine(live)
	queries := []string{
		`SELECT 1::TINYINT AS i8, 2::SMALLINT AS i16, 3::INTEGER AS i32, 4::BIGINT AS i64, 5::UTINYINT AS u8,
			6::USMALLINT AS u16, 7::UINTEGER AS u32, 18446744073709551615::UBIGINT AS u64,
			170141183460469231731687303715884105727::HUGEINT AS huge, 12345678901234567890.123::DECIMAL(38,3) AS dec,
			1.5::FLOAT AS f32, 2.25::DOUBLE AS f64, 'nan'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::FLOAT AS ninf,
			true AS t, false AS f, NULL AS n, '麻布台' AS s, ''::VARCHAR AS empty`,
		`SELECT [1, NULL, 3] AS list, [[1], [], [2, 3]] AS nested, {'b': 1, 'a': [{'y': 'x', 'x': NULL}]} AS obj,
			MAP {'k2': 1, 'k1': 2} AS m, DATE '2026-11-23' AS d, TIME '12:34:56' AS tm,
			TIMESTAMP '2026-11-23 01:02:03.5' AS ts, TIMESTAMPTZ '2026-11-23 01:02:03+00' AS tstz,
			INTERVAL 3 DAY AS iv, '\x00\xff'::BLOB AS blob, uuid() IS NOT NULL AS u, [1.5, 'nan'::DOUBLE] AS fl,
			[DATE '2026-01-01'] AS dl, [1, 2]::INTEGER[2] AS arr`,
		`SELECT store_id, store_name FROM products LIMIT 20`,
		`SELECT store_name FROM stores WHERE false`,
	}
	for _, sql := range queries {
		res, err := e.Query(context.Background(), schema.Products, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if res.Build == "" {
			t.Errorf("%s: the result names no build", sql)
		}
		b, err := EncodeResult(res)
		if err != nil {
			t.Fatalf("%s: encode: %v", sql, err)
		}
		got, err := DecodeResult(b)
		if err != nil {
			t.Fatalf("%s: decode: %v", sql, err)
		}
		if !reflect.DeepEqual(got, res) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", sql, got, res)
		}
		if jsonOf(t, got) != jsonOf(t, res) {
			t.Errorf("%s: the JSON differs:\n%s\n%s", sql, jsonOf(t, got), jsonOf(t, res))
		}
		// Every cut of the bytes is an error, never a panic or a different result.
		for i := 0; i < len(b); i++ {
			if _, err := DecodeResult(b[:i]); err == nil {
				t.Fatalf("%s: decoding the first %d of %d bytes succeeded", sql, i, len(b))
			}
		}
	}
}

// jsonOf is res's JSON document, as ctool query --format json writes it.
func jsonOf(t *testing.T, res *query.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := textout.JSON(&b, render.Document(res)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
