package console

import (
	"database/sql"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

var (
	recordLink = regexp.MustCompile(`<td class="view" data-label="[^"]*"><a href="([^"]+)">`)
	nextLink   = regexp.MustCompile(`<a rel="next" href="([^"]+)">`)
	listLink   = regexp.MustCompile(`href="(/products\?[^"]*)"`)
)

// Products carry their store_id in the list and in every export, so that an export joins the stores
// and can be imported again: the source file's columns come first, in its order, with the build's
// values. The agents' rule that hides the column (schema.Column.Hidden) is theirs.
func TestProductsCarryStoreID(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	if page := body(t, get(t, s, "/products")); !strings.Contains(page, `<th scope="col" title="store_id">`) || !strings.Contains(page, `data-label="店舗ID"><div class="v"><span class="clip">STR-`) {
		t.Error("the products list has no store_id column")
	}
	want := plainRows(t, plainDB(t, f.sample), "SELECT store_id, product_name FROM products ORDER BY rowid")
	csvRows := exportRows(t, s, "/products.csv")
	var source []string
	for _, c := range schema.Products.Columns {
		source = append(source, c.Name)
	}
	if !slices.Equal(csvRows[0][:len(source)], source) {
		t.Errorf("the CSV's columns %q do not start with the source file's %q", csvRows[0], source)
	}
	if len(csvRows) != len(want) {
		t.Fatalf("the CSV has %d rows, the build %d", len(csvRows)-1, len(want)-1)
	}
	for i := 1; i < len(want); i++ {
		if csvRows[i][0] != want[i][0] || csvRows[i][2] != want[i][1] {
			t.Fatalf("CSV row %d: %q, the build %q", i, csvRows[i][:3], want[i])
		}
	}
	excel := strings.TrimPrefix(body(t, get(t, s, "/products-excel.csv")), "\ufeff")
	if !strings.HasPrefix(excel, "store_id,store_name,") {
		t.Errorf("the Excel CSV starts %q", excel[:min(len(excel), 40)])
	}
	jsonl := strings.SplitN(body(t, get(t, s, "/products.jsonl")), "\n", 2)[0]
	if !strings.HasPrefix(jsonl, `{"store_id":"`+want[1][0]+`","store_name":`) {
		t.Errorf("the JSON lines start %q", jsonl)
	}
	pq := filepath.Join(t.TempDir(), "products.parquet")
	if err := os.WriteFile(pq, []byte(body(t, get(t, s, "/products.parquet"))), 0o644); err != nil {
		t.Fatal(err)
	}
	mem, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	got := plainRows(t, mem, "SELECT store_id, product_name FROM read_parquet(?)", pq)
	if len(got) != len(want) || got[1][0] != want[1][0] || got[len(got)-1][0] != want[len(want)-1][0] {
		t.Errorf("the Parquet's store_id: %d rows, first %q, the build %q", len(got)-1, got[1], want[1])
	}
}

// pageKeys walks a list from target by its "next" links and returns each row's record link, in
// order, and the pages' HTML.
func pageKeys(t *testing.T, s *Server, target string) (keys []string, pages []string) {
	t.Helper()
	for target != "" {
		res := get(t, s, target)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %s", target, res.Status)
		}
		page := body(t, res)
		pages = append(pages, page)
		for _, m := range recordLink.FindAllStringSubmatch(page, -1) {
			keys = append(keys, html.UnescapeString(m[1]))
		}
		target = ""
		if m := nextLink.FindStringSubmatch(page); m != nil {
			target = html.UnescapeString(m[1])
		}
		if len(pages) > 200 {
			t.Fatal("the pages do not end")
		}
	}
	return keys, pages
}

// Every page size pages through the whole list: the pages' rows, one after the other, are the
// export's rows in its order, in the build's order or sorted, filtered or not; and every link of a
// page (facets, sort, pages, chips) and the search form keep the size. "all" stops at maxListRows
// a page and says so, pointing to the exports.
func TestPageSizes(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	defer func(n int) { maxListRows = n }(maxListRows)
	maxListRows = 70 // the sample has 176 products: three pages of "all"
	for _, query := range []string{"", "_sort_desc=price_yen", "tag=" + url.QueryEscape("フード") + "&_sort=product_name", "q=" + url.QueryEscape("ちょこ")} {
		export := exportRows(t, s, "/products.csv?"+query)
		var want []string
		for _, row := range export[1:] {
			want = append(want, "/products/record?"+url.Values{"store_id": {row[0]}, "product_name": {row[2]}}.Encode())
		}
		for _, size := range []string{"", "50", "100", "500", "all"} {
			target := "/products?" + query
			if size != "" {
				target += "&_size=" + size
			}
			keys, pages := pageKeys(t, s, target)
			if !slices.Equal(keys, want) {
				t.Errorf("%s: the pages hold %d rows, the export %d, or in another order", target, len(keys), len(want))
			}
			per := map[string]int{"": 50, "50": 50, "100": 100, "500": 500, "all": 70}[size]
			if n := (len(want) + per - 1) / per; len(pages) != max(n, 1) {
				t.Errorf("%s: %d pages, want %d", target, len(pages), n)
			}
			capped := strings.Contains(pages[0], `<p class="note">`)
			if capped != (size == "all" && len(want) > 70) {
				t.Errorf("%s: the note that the list stops at %d rows is shown: %v", target, maxListRows, capped)
			}
			if size == "" || size == "50" {
				continue
			}
			for _, page := range pages {
				if len(want) > 50 && !strings.Contains(page, `<strong aria-current="true">`) {
					t.Errorf("%s: the page size is not marked", target)
				}
				if !strings.Contains(page, `<input type="hidden" name="_size" value="`+size+`">`) {
					t.Errorf("%s: the search form drops the size", target)
				}
				for _, m := range listLink.FindAllStringSubmatch(page, -1) {
					link, _ := url.Parse(html.UnescapeString(m[1]))
					if got := link.Query().Get("_size"); got != size && !isSizeLink(link) {
						t.Errorf("%s: the link %s has _size=%q", target, m[1], got)
					}
				}
			}
		}
	}
	// The export ignores the page size and the page: every row.
	if all, sized := exportRows(t, s, "/products.csv"), exportRows(t, s, "/products.csv?_size=100&_page=2"); len(all) != len(sized) {
		t.Errorf("an export with _size=100&_page=2 has %d rows, without %d", len(sized)-1, len(all)-1)
	}
}

// isSizeLink reports a link of the page size choice: it changes the size. The default size is no
// parameter.
func isSizeLink(u *url.URL) bool {
	return !u.Query().Has("_page") && (u.Query().Get("_size") == "" || slices.Contains(pageSizes, u.Query().Get("_size")))
}

// A mistyped parameter is never dropped unsaid: the page names it, with the parameter meant when one
// is close, and lists as filtered by the others; an export of every format refuses it, in the
// visitor's language.
func TestUnknownParameters(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	all := len(exportRows(t, s, "/stores.csv")) - 1
	cafes := len(exportRows(t, s, "/stores.csv?category=cafe")) - 1
	for _, c := range []struct {
		target, lang string
		rows         int
		want         []string
	}{
		{"/stores?categry=cafe", "ja", all, []string{"分からないパラメータを無視しました", "<code>categry=cafe</code>", `<a href="/stores?category=cafe"><code>category</code></a> のことですか？`}},
		{"/stores?categry=cafe", "en", all, []string{"Not understood: ignored", `did you mean <a href="/stores?category=cafe"><code>category</code></a>?`, "The list below is shown as if it were not there."}},
		{"/stores?category=cafe&sortt=store_name", "en", cafes, []string{"<code>sortt=store_name</code>", `<a href="/stores?_sort=store_name&amp;category=cafe"><code>_sort</code></a>`, `<a href="/stores?category=cafe">Remove it from the address</a>`}},
		{"/stores?" + url.QueryEscape("カテゴリ") + "=cafe&per_page=20", "en", all, []string{`<a href="/stores?category=cafe"><code>category</code></a>`, "<code>per_page=20</code>: did you mean <code>_size</code>?", "as if they were not there"}},
	} {
		page := body(t, get(t, s, c.target, "Accept-Language", c.lang))
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s (%s) has no %s", c.target, c.lang, w)
			}
		}
		if n := len(recordLink.FindAllString(page, -1)); n != c.rows {
			t.Errorf("%s lists %d rows, want %d", c.target, n, c.rows)
		}
	}
	for _, ext := range []string{".csv", "-excel.csv", ".jsonl", ".parquet"} {
		for lang, want := range map[string]string{"ja": "不明なパラメータ: categry（category のことですか？）。何も書き出していません", "en": "Unknown parameter: categry (did you mean category?). Nothing was exported"} {
			res := get(t, s, "/stores"+ext+"?categry=cafe", "Accept-Language", lang)
			if page := body(t, res); res.StatusCode != 400 || res.Header.Get("Content-Disposition") != "" || !strings.Contains(page, want) {
				t.Errorf("/stores%s?categry=cafe (%s): %s, %q", ext, lang, res.Status, page[strings.Index(page, "<main"):])
			}
		}
	}
	if page := body(t, get(t, s, "/products.csv?a=1&b=2&tga=x", "Accept-Language", "en")); !strings.Contains(page, "Unknown parameters: a, b, tga (did you mean tag?).") {
		t.Errorf("three unknown parameters: %s", page[strings.Index(page, "<main"):])
	}
}

func TestClosestParam(t *testing.T) {
	stores, products := tableNamed("stores"), tableNamed("products")
	for _, c := range []struct {
		t          *table
		name, want string
	}{
		{stores, "categry", "category"}, {stores, "Category", "category"}, {stores, "カテゴリ", "category"},
		{stores, "Audience", "target_audience"}, {stores, "pets_alowed", "pets_allowed"}, {stores, "sort", "_sort"},
		{stores, "_sort_dsc", "_sort_desc"}, {stores, "size", "_size"}, {stores, "per_page", "_size"}, {stores, "_search", "q"},
		{stores, "page", "_page"}, {stores, "opne", "open"}, {products, "tga", "tag"}, {products, "open", ""}, {products, "qq", ""},
		{products, "x", ""}, {products, "", ""}, {products, strings.Repeat("a", 500), ""},
	} {
		if got := closestParam(c.t, c.t.params(), c.name); got != c.want {
			t.Errorf("%s: %q is taken for %q, want %q", c.t.D.Name, c.name, got, c.want)
		}
	}
}

// Every column of every list has a short label in Japanese and in English, no two alike in a
// list (words' own test holds every entry of its tables to a column).
func TestColumnLabels(t *testing.T) {
	for _, tb := range tables {
		seen := map[string]string{}
		for _, c := range tb.Cols {
			for lang, l := range map[string]string{"ja": c.Ja, "en": c.En} {
				switch {
				case l == "":
					t.Errorf("%s.%s has no %s label (labels.go)", tb.D.Name, c.Name, lang)
				case len([]rune(l)) > 24:
					t.Errorf("%s.%s: the %s label %q is long for a header", tb.D.Name, c.Name, lang, l)
				case seen[lang+l] != "":
					t.Errorf("%s: %s and %s have the one %s label %q", tb.D.Name, seen[lang+l], c.Name, lang, l)
				}
				seen[lang+l] = c.Name
			}
		}
	}
}
