package console

import (
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/schema"
)

// positionalProducts is products_typed as the agents' view defines it (migrations/main/003_typed.sql):
// the reference the console's narrowed statements are held to.
const positionalProducts = `(SELECT p.rowid AS _row, p.*, pr.price_yen, pr.price_max_yen
        FROM products p POSITIONAL JOIN ctool_derive.product_prices pr)`

// largeProducts is a database with the two tables the console's products statements read, of n rows:
// several of DuckDB's row groups, read by more than one thread, with ties and NULLs among the prices
// and a searched word in one description in seven.
func largeProducts(t *testing.T, n int) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "large.duckdb")
	db, err := sql.Open("duckdb", path+"?threads=4")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE TABLE products (store_id VARCHAR NOT NULL, store_name VARCHAR NOT NULL, product_name VARCHAR NOT NULL,
			product_description VARCHAR, tag VARCHAR COLLATE NOCASE)`,
		`CREATE SCHEMA ctool_derive`,
		`CREATE TABLE ctool_derive.product_prices (price_yen INTEGER, price_max_yen INTEGER, price_unread BOOLEAN)`,
		fmt.Sprintf(`INSERT INTO products SELECT 'STR-' || (i %% 20), 'store ' || (i %% 20), 'item ' || (i %% 673),
			CASE WHEN i %% 7 = 3 THEN 'たっぷりのカカオ ' || i WHEN i %% 11 = 0 THEN NULL ELSE 'description ' || i END,
			CASE WHEN i %% 9 = 0 THEN NULL ELSE ['フード', 'スイーツ', '雑貨'][i %% 3 + 1] END
			FROM range(%d) r(i) ORDER BY i`, n),
		fmt.Sprintf(`INSERT INTO ctool_derive.product_prices SELECT CASE WHEN i %% 13 = 0 THEN NULL ELSE (i * 7919) %% 997 END,
			CASE WHEN i %% 5 = 0 THEN 2000 END, false FROM range(%d) r(i) ORDER BY i`, n),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// The products list reads narrower relations than productsTyped (narrow, productsPage): every page,
// facet and count is the one the whole relation gives, in every order, on a table of several row groups.
func TestNarrowedProductsStatements(t *testing.T) {
	const n = 300_000
	db := largeProducts(t, n)
	ref := func(lq *listQuery) string {
		return fmt.Sprintf("SELECT %s FROM %s AS t WHERE %s ORDER BY %s LIMIT %d OFFSET %d",
			lq.selectList(), positionalProducts, lq.where().sql, lq.order(), lq.Size, (lq.Page-1)*lq.Size)
	}
	for _, query := range []string{
		"",
		"_page=2",
		"_page=3000",
		fmt.Sprintf("_page=%d", n/50),
		"_sort=price_yen",
		"_sort_desc=price_yen&_page=5",
		fmt.Sprintf("_sort=price_yen&_page=%d", n/50),
		"_sort=product_name&_page=7",
		"q=" + url.QueryEscape("かかお"),
		"q=" + url.QueryEscape("ｶｶｵ") + "&_page=800",
		"q=" + url.QueryEscape("かかお") + "&_sort=price_yen&_page=3",
		"tag=" + url.QueryEscape("スイーツ") + "&_page=40",
		"price_yen=500&_page=2",
		"price_yen=500&_sort_desc=price_yen",
		"price_max_yen=2000&_sort=price_yen&_page=9",
		"price_yen=&tag=&_size=500",
		"price_yen=500&q=" + url.QueryEscape("かかお") + "&_sort=product_name",
		"q=" + url.QueryEscape("カカオ") + "&tag=" + url.QueryEscape("スイーツ") + "&price_max_yen=2000&_sort_desc=price_yen&_page=4",
	} {
		q, _ := url.ParseQuery(query)
		lq, err := parseList(tableNamed("products"), q, time.Now().In(schema.Tokyo))
		if err != nil {
			t.Fatal(err)
		}
		page := lq.pageStmt()
		got := plainRows(t, db, page.sql.String(), page.args...)
		want := plainRows(t, db, ref(lq), lq.where().args...)
		if len(want) < 2 {
			t.Fatalf("%q: the reference page is empty", query)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the page's %d rows differ from the whole relation's %d (first %v, want %v)", query, len(got)-1, len(want)-1, got[1:2], want[1:2])
		}
		for _, c := range lq.T.Cols {
			if !c.Facet {
				continue
			}
			st := lq.facetStmt(c)
			got := plainRows(t, db, st.sql.String(), st.args...)
			w := lq.where()
			want := plainRows(t, db, fmt.Sprintf("SELECT CAST(v AS VARCHAR), n, sum(n) OVER () FROM (SELECT v, count(*) AS n FROM (SELECT %s AS v FROM %s AS t WHERE %s) GROUP BY ALL) ORDER BY n DESC, v NULLS LAST LIMIT %d",
				schema.QuoteIdent(c.Name), positionalProducts, w.sql, maxFacetValues+1), w.args...)
			if !reflect.DeepEqual(got[1:], want[1:]) {
				t.Errorf("%q: facet %s %v, want %v", query, c.Name, got[1:], want[1:])
			}
		}
		cnt := lq.countStmt()
		var gotN, wantN int64
		if err := db.QueryRow(cnt.sql.String(), cnt.args...).Scan(&gotN); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow("SELECT count(*) FROM "+positionalProducts+" AS t WHERE "+lq.where().sql.String(), lq.where().args...).Scan(&wantN); err != nil {
			t.Fatal(err)
		}
		if gotN != wantN {
			t.Errorf("%q: count %d, want %d", query, gotN, wantN)
		}
	}
}

// Which table each statement reads, and whether it needs the other: the point of narrowing, held so
// that a change that widens it again shows here and not only in the benchmark.
func TestNarrowReadsOneTable(t *testing.T) {
	for _, c := range []struct {
		query, col string
		want       string
		single     bool
	}{
		{"", "", productsOnly, true},
		{"q=x", "tag", productsOnly, true},
		{"", "price_yen", pricesOnly, true},
		{"price_max_yen=1", "price_yen", pricesOnly, true},
		{"q=x", "price_yen", pricesOnly, false},
		{"tag=x&price_yen=1", "price_yen", pricesOnly, false},
		{"price_yen=1", "tag", productsOnly, false},
	} {
		q, _ := url.ParseQuery(c.query)
		lq, err := parseList(tableNamed("products"), q, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		rel, w, single, ok := lq.narrow(c.col)
		if got := rel.String(); !ok || got != c.want || single != c.single {
			t.Errorf("%q %q: %q single %v, want %q single %v", c.query, c.col, got, single, c.want, c.single)
		}
		if in := strings.Contains(w.sql.String(), "_row IN"); in == c.single {
			t.Errorf("%q %q: condition %s", c.query, c.col, w.sql)
		}
	}
	lq, _ := parseList(tableNamed("stores"), url.Values{}, time.Now())
	if _, _, _, ok := lq.narrow(""); ok {
		t.Error("stores narrowed")
	}
}
