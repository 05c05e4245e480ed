package console

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/database"

	_ "github.com/duckdb/duckdb-go/v2"
)

// plainDB opens a build with DuckDB alone, read-only, for reads that owe nothing to the console.
func plainDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// plainRows reads a query's rows as text, as the console's CSV writes them.
func plainRows(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := [][]string{cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		rec := make([]string, len(cols))
		for i, v := range vals {
			typ := ""
			if tm, ok := v.(time.Time); ok && tm.Hour() == 0 && tm.Minute() == 0 && tm.Second() == 0 {
				typ = "DATE" // the typed views' dates come back from Parquet as times at midnight
			}
			rec[i] = valueText(v, typ)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every export holds every row of the list, whatever the chunk: the CSV equals DuckDB's own read of
// the typed view with the same filter, in the build's order and sorted.
func TestExportWhole(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	db := plainDB(t, f.sample)
	defer func(n int) { exportChunk = n }(exportChunk)
	for _, chunk := range []int{50_000, 7, 1} {
		exportChunk = chunk
		t.Run(fmt.Sprint("chunk ", chunk), func(t *testing.T) {
			cols := "store_id, store_name, product_name, product_description, tag, price_yen, price_max_yen"
			for _, c := range []struct{ target, query string }{
				{"/products.csv", "SELECT " + cols + " FROM products_typed"},
				{"/products.csv?tag=" + url.QueryEscape("ギフト"), "SELECT " + cols + " FROM products_typed WHERE tag = 'ギフト'"},
				{"/products.csv?_sort=price_yen", "SELECT " + cols + " FROM products_typed ORDER BY price_yen NULLS LAST"},
				{"/products.csv?_sort_desc=product_name&tag=" + url.QueryEscape("フード"), "SELECT " + cols + " FROM products_typed WHERE tag = 'フード' ORDER BY product_name DESC NULLS LAST"},
				{"/stores.csv?_sort_desc=parking_capacity", "SELECT * EXCLUDE (rowid) FROM (SELECT rowid, * FROM stores_typed) ORDER BY parking_capacity DESC NULLS LAST, rowid"},
			} {
				got := exportRows(t, s, c.target)
				want := plainRows(t, db, c.query)
				if c.target == "/products.csv?_sort=price_yen" || strings.Contains(c.target, "_sort_desc=product_name") {
					// products_typed is a view without rowid: compare as sets under the sort key.
					slices.SortFunc(got[1:], func(a, b []string) int { return strings.Compare(strings.Join(a, "\x1f"), strings.Join(b, "\x1f")) })
					slices.SortFunc(want[1:], func(a, b []string) int { return strings.Compare(strings.Join(a, "\x1f"), strings.Join(b, "\x1f")) })
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, DuckDB %d", c.target, len(got)-1, len(want)-1)
				}
				for i := range got {
					if strings.Join(got[i], "\x1f") != strings.Join(want[i], "\x1f") {
						t.Fatalf("%s row %d:\n got  %q\n want %q", c.target, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// The Excel CSV starts with a byte-order mark, ends its lines in CRLF, and quotes a cell a
// spreadsheet would run as a formula; the plain CSV keeps the cell as it is.
func TestExportForExcel(t *testing.T) {
	f := builds(t)
	dir := filepath.Join(t.TempDir(), "in")
	copyInput(t, f.input, dir, "filtered_product_data.csv", "手巻き寿司セット 天然本鮪入り", "=HYPERLINK(\"http://evil.example\")")
	db := filepath.Join(t.TempDir(), "ctool.duckdb")
	rebuild(t, dir, db)
	s := newServer(t, Config{DB: db})
	res := get(t, s, "/products-excel.csv?q="+url.QueryEscape("HYPERLINK"))
	raw, _ := io.ReadAll(res.Body)
	if !bytes.HasPrefix(raw, []byte("\ufeff")) || !bytes.Contains(raw, []byte("\r\n")) {
		t.Errorf("no byte-order mark or CRLF: %q", raw[:min(len(raw), 40)])
	}
	if !bytes.Contains(raw, []byte(`'=HYPERLINK`)) {
		t.Errorf("the formula is not quoted: %s", raw)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="products-excel-`) || strings.ContainsAny(cd[len(`attachment; filename="`):len(cd)-1], `"/\ `) {
		t.Errorf("Content-Disposition %q", cd)
	}
	plain := exportRows(t, s, "/products.csv?q="+url.QueryEscape("HYPERLINK"))
	if len(plain) != 2 || !slices.Contains(plain[1], `=HYPERLINK("http://evil.example")`) {
		t.Errorf("the plain CSV changed the cell: %q", plain)
	}
}

// A cell starting with a line break or a tab then a formula is quoted too: Excel drops the break.
func TestExcelQuotesBreakThenFormula(t *testing.T) {
	var b bytes.Buffer
	w := newCSV(true)(&b, []column{{Name: "c", Type: "VARCHAR"}})
	for _, cell := range []string{"\n=1+1", "\r\n=1+1", "\t=1+1", "plain"} {
		if err := w.write([]any{cell}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b.Bytes(), []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0])
	}
	if want := []string{"'\n=1+1", "'\n=1+1", "'\t=1+1", "plain"}; !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
}

// JSON lines are one typed object a row; Parquet, read back by DuckDB, holds the same rows.
func TestExportJSONLinesAndParquet(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	res := get(t, s, "/events.jsonl?target_audience="+url.QueryEscape("家族"))
	lines := strings.Split(strings.TrimSpace(body(t, res)), "\n")
	want := exportRows(t, s, "/events.csv?target_audience="+url.QueryEscape("家族"))
	if len(lines) != len(want)-1 {
		t.Fatalf("%d lines, %d rows", len(lines), len(want)-1)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if _, ok := first["target_audience"].([]any); !ok {
		t.Errorf("target_audience is %T, not a list", first["target_audience"])
	}
	// A flag is a boolean, or null where the cell is empty (unknown, not false).
	if v, ok := first["registration_required"]; !ok {
		t.Error("no registration_required")
	} else if _, isBool := v.(bool); !isBool && v != nil {
		t.Errorf("registration_required is %T, not a boolean or null", v)
	}
	for _, name := range []string{"events", "stores", "products"} {
		pq := filepath.Join(t.TempDir(), name+".parquet")
		if err := os.WriteFile(pq, []byte(body(t, get(t, s, "/"+name+".parquet"))), 0o644); err != nil {
			t.Fatal(err)
		}
		mem, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		got := plainRows(t, mem, "SELECT * FROM read_parquet(?)", pq)
		mem.Close()
		csvRows := exportRows(t, s, "/"+name+".csv")
		if len(got) != len(csvRows) || strings.Join(got[0], ",") != strings.Join(csvRows[0], ",") {
			t.Fatalf("%s: parquet %d rows %q, csv %d rows %q", name, len(got)-1, got[0], len(csvRows)-1, csvRows[0])
		}
		for i := 1; i < len(got); i++ {
			for j := range got[i] {
				if got[i][j] != csvRows[i][j] {
					t.Fatalf("%s row %d %s: parquet %q, csv %q", name, i, got[0][j], got[i][j], csvRows[i][j])
				}
			}
		}
	}
}

// The console's products relation is products_typed with a row number: the same columns and rows.
func TestProductsRelation(t *testing.T) {
	f := builds(t)
	db := plainDB(t, f.sample)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM (
		(SELECT * EXCLUDE (_row) FROM ` + productsTyped + ` EXCEPT ALL SELECT * FROM products_typed)
		UNION ALL
		(SELECT * FROM products_typed EXCEPT ALL SELECT * EXCLUDE (_row) FROM ` + productsTyped + `))`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows differ between the console's products and products_typed", n)
	}
	a := plainRows(t, db, "SELECT * EXCLUDE (_row) FROM "+productsTyped+" LIMIT 0")
	b := plainRows(t, db, "SELECT * FROM products_typed LIMIT 0")
	if strings.Join(a[0], ",") != strings.Join(b[0], ",") {
		t.Errorf("columns %q, products_typed %q", a[0], b[0])
	}
}

// DuckDB's regular expressions read Pattern as Go's do.
func TestPatternInDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		term, text string
		want       bool
	}{
		{"チョコ", "ﾁｮｺﾚｰﾄ", true}, {"チョコ", "ちょこ", true}, {"カ", "ｶﾞﾑ", false}, {"カ", "カﾟ", true},
		{"ガム", "ｶﾞﾑ", true}, {"a.b", "axb", false}, {"a.b", "Ａ.Ｂ", true}, {"(", "（", true},
	} {
		var got bool
		if err := db.QueryRow("SELECT regexp_matches(?, ?)", c.text, Pattern(c.term)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("DuckDB: %q in %q = %v", c.term, c.text, got)
		}
	}
}

// HEAD on an export answers what GET would send, the headers, without reading a row: no statement
// over the list reaches DuckDB.
func TestExportHead(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	s.live.Close()
	s.live = database.NewLive(f.sample, database.WithStatementLog())
	for _, target := range []string{"/products.csv", "/stores.jsonl", "/events.parquet"} {
		gotGet := get(t, s, target)
		io.Copy(io.Discard, gotGet.Body)
		head := request(t, s, http.MethodHead, target)
		if n, _ := io.Copy(io.Discard, head.Body); head.StatusCode != http.StatusOK || n != 0 {
			t.Errorf("HEAD %s: %d with %d bytes", target, head.StatusCode, n)
		}
		for _, h := range []string{"Content-Type", "Content-Disposition", "Cache-Control"} {
			if got, want := head.Header.Get(h), gotGet.Header.Get(h); got != want || got == "" {
				t.Errorf("HEAD %s: %s %q, GET %q", target, h, got, want)
			}
		}
	}
	b, release, err := s.live.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	log, err := b.StatementLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Each GET reads its list from the table with the row numbers; the HEADs add no such statement.
	reads := 0
	for _, stmt := range log {
		if strings.Contains(stmt, "_row >= ") || strings.Contains(stmt, "max(_row)") {
			reads++
		}
	}
	if reads == 0 {
		t.Fatalf("no export statement in the log at all: %q", log)
	}
	if head := request(t, s, http.MethodHead, "/products.csv"); head.StatusCode != http.StatusOK {
		t.Fatalf("HEAD /products.csv: %d", head.StatusCode)
	}
	after, err := b.StatementLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(log) {
		t.Errorf("HEAD ran statements: %q", after[len(log):])
	}
}
