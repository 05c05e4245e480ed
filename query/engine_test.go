package query_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// newEngine returns an engine over a database built from the sample data.
func newEngine(t *testing.T) *query.Engine {
	t.Helper()
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	t.Cleanup(live.Close)
	return query.NewEngine(live)
}

func jsonOf(t *testing.T, res *query.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := textout.JSON(&b, render.Document(res)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func kindOf(err error) fault.Kind {
	var e *fault.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func TestEngineAnswers(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		dataset *schema.Dataset
		sql     string
		want    string // the whole JSON document
	}{
		{"column order kept", schema.Stores, "SELECT category, store_name FROM stores WHERE store_id = 'STR-0001'",
			`{"results": [{"category": "retail", "store_name": "麻布台ヒルズマーケット"}], "count": 1, "truncated": false}`},
		{"nothing matched", schema.Stores, "SELECT store_name FROM 'stores.csv' WHERE store_name = '存在しない店舗'",
			`{"results": [], "count": 0, "truncated": false, "message": "検索条件に一致する店舗が見つかりませんでした", "hint": "store_name = '存在しない店舗' matches no row of stores.csv; nothing in store_name is close to it"}`},
		{"capped", schema.Events, "SELECT 1 AS one FROM range(20)",
			`{"results": [` + strings.Repeat(`{"one": 1}, `, 9) + `{"one": 1}], "count": 10, "truncated": true, "hint": "` + render.TruncatedHint(10) + `"}`},
		{"store_id left out of products by name", schema.Products, "SELECT store_id, product_name FROM products WHERE product_name = '本鮪 中トロ 柵'",
			`{"results": [{"product_name": "本鮪 中トロ 柵"}], "count": 1, "truncated": false, "note": "left out store_id: store_id is internal to products and never shown; use it only in WHERE or JOIN"}`},
		{"store_id shown for stores", schema.Stores, "SELECT store_id FROM stores WHERE store_id = 'STR-0001'",
			`{"results": [{"store_id": "STR-0001"}], "count": 1, "truncated": false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Query(ctx, tt.dataset, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(jsonOf(t, res)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestEngineOwnLimit: truncated says whether more rows match than came back, whoever wrote the LIMIT
// or OFFSET, and count is the rows returned (the sample has 20 stores).
func TestEngineOwnLimit(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	all, err := e.Query(ctx, schema.Stores, "SELECT store_name FROM stores ORDER BY store_id OFFSET 10")
	if err != nil || len(all.Rows) != 10 || all.Truncated {
		t.Fatalf("the last ten stores: %v, %v", all, err)
	}
	tests := []struct {
		sql       string
		rows      [][]any // nil: not compared
		truncated bool
	}{
		{"SELECT store_name FROM stores ORDER BY store_id OFFSET 10 LIMIT 3", all.Rows[:3], true},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 3 OFFSET 17", all.Rows[7:], false},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 5 OFFSET 15", all.Rows[5:], false},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 5 OFFSET 17", all.Rows[7:], false},
		{"SELECT store_name FROM stores ORDER BY store_id DESC LIMIT 1", all.Rows[9:], true},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 10 OFFSET 10", all.Rows, false},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 10 OFFSET 9", nil, true},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 30 OFFSET 10", all.Rows, false},
		{"SELECT store_name FROM stores ORDER BY store_id LIMIT 30", nil, true},
		{"SELECT * FROM (SELECT store_name FROM stores ORDER BY store_id OFFSET 17 LIMIT 3)", all.Rows[7:], false},
		{"WITH s AS (SELECT store_name, store_id FROM stores ORDER BY store_id OFFSET 17 LIMIT 3) SELECT store_name FROM s ORDER BY store_id", all.Rows[7:], false},
		{"SELECT store_name FROM stores UNION ALL SELECT event_name FROM events LIMIT 4", nil, true},
		{"SELECT store_name FROM stores LIMIT 0", [][]any{}, true},
		{"SELECT store_name FROM stores WHERE store_id = 'none' LIMIT 0", [][]any{}, false},
	}
	for _, tt := range tests {
		res, err := e.Query(ctx, schema.Stores, tt.sql)
		if err != nil {
			t.Errorf("%q: %v", tt.sql, err)
			continue
		}
		if tt.rows != nil && !reflect.DeepEqual(res.Rows, tt.rows) || res.Truncated != tt.truncated {
			t.Errorf("%q: rows %v, truncated %v; want %v, %v", tt.sql, res.Rows, res.Truncated, tt.rows, tt.truncated)
		}
	}
	// LIMIT 0 of rows that match is no empty result: no message that nothing matched, and the hint
	// says what to do.
	res, err := e.Query(ctx, schema.Stores, "SELECT store_name FROM stores LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compact(jsonOf(t, res)), `{"results": [], "count": 0, "truncated": true, "hint": "`+render.TruncatedHint(0)+`"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// compact puts an indented JSON document on one line with ", " and ": " separators.
func compact(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimSpace(line)
		b.WriteString(line)
		if strings.HasSuffix(line, ",") {
			b.WriteString(" ")
		}
	}
	return b.String()
}

func TestEngineErrors(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		sql  string
		kind fault.Kind
		msg  string // a part of the message
	}{
		{"DROP TABLE stores", fault.KindRefused, "refused: DROP."},
		{"   ", fault.KindRefused, "refused: empty query."},
		{"SELECT * FROM read_csv('/etc/passwd')", fault.KindRefused, "refused: table function read_csv()"},
		{"SELECT no_such_column FROM stores", fault.KindSQL, "Binder Error"},
		{"SELECT CAST('x' AS INTEGER)", fault.KindSQL, "Conversion Error"},
	}
	for _, tt := range tests {
		_, err := e.Query(context.Background(), schema.Stores, tt.sql)
		if kindOf(err) != tt.kind || !strings.Contains(fmt.Sprint(err), tt.msg) {
			t.Errorf("%q: got %v (kind %q), want kind %q mentioning %q", tt.sql, err, kindOf(err), tt.kind, tt.msg)
		}
		// The agent never wrote the row-cap statement, so no message quotes it.
		if strings.Contains(fmt.Sprint(err), "ctool_q") {
			t.Errorf("%q: the message quotes the row-cap statement: %v", tt.sql, err)
		}
	}
}

// One engine serves many queries at once, as the resident server does.
func TestEngineConcurrentQueries(t *testing.T) {
	e := newEngine(t)
	queries := []struct {
		d    *schema.Dataset
		sql  string
		rows int
	}{
		{schema.Stores, "SELECT store_name FROM stores WHERE category = 'cafe' ORDER BY store_id", -1},
		{schema.Events, "SELECT event_name FROM events_typed WHERE is_free", -1},
		{schema.Products, "SELECT p.product_name FROM products p JOIN stores s USING (store_id) WHERE s.category = 'retail'", -1},
	}
	// What each query returns alone, to compare with.
	want := make([]string, len(queries))
	for i, q := range queries {
		res, err := e.Query(context.Background(), q.d, q.sql)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = jsonOf(t, res)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			q := queries[i%len(queries)]
			res, err := e.Query(context.Background(), q.d, q.sql)
			if err != nil {
				errs <- err
				return
			}
			if got := jsonOf(t, res); got != want[i%len(queries)] {
				errs <- fmt.Errorf("call %d got %s", i, got)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A cancelled call stops its query and says so; the engine keeps answering.
func TestEngineCancel(t *testing.T) {
	e := newEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Query(ctx, schema.Events, "SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3")
		done <- err
	}()
	cancel()
	err := <-done
	if kindOf(err) != fault.KindTimeout {
		t.Fatalf("got %v, want a timeout-kind error", err)
	}
	if _, err := e.Query(context.Background(), schema.Events, "SELECT count(*) FROM events"); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
}

// A new ingest is picked up by the next query without a new engine.
func TestEngineFollowsNewBuilds(t *testing.T) {
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	defer live.Close()
	e := query.NewEngine(live)
	// buildAfterQuery runs a query, then says which build the engine now serves.
	buildAfterQuery := func() string {
		if _, err := e.Query(context.Background(), schema.Stores, "SELECT count(*) FROM stores"); err != nil {
			t.Fatal(err)
		}
		b, release, err := live.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		return b.ID
	}
	first := buildAfterQuery()
	ingesttest.Rebuild(t, input, path)
	if second := buildAfterQuery(); second == first {
		t.Fatalf("still on build %s after a new ingest", first)
	}
}
