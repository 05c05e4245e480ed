package console

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/azabudai/ctool/schema"
)

// statement is one statement a list page runs, as text with its arguments: for the benchmark that
// runs the same statements on DuckDB alone (bench/console), never for running them here.
type statement struct {
	SQL  string `json:"sql"`
	Args []any  `json:"args"`
}

// listStatements are the statements the list page of dataset runs for query (a URL's query string)
// at time now: each facet's counts, then the page.
func listStatements(dataset, query string, now time.Time) ([]statement, error) {
	t := tableNamed(dataset)
	if t == nil {
		return nil, fmt.Errorf("no dataset %q", dataset)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	lq, err := parseList(t, q, now.In(schema.Tokyo))
	if err != nil {
		return nil, err
	}
	var out []statement
	for _, c := range t.Cols {
		if c.Facet {
			st := lq.facetStmt(c)
			out = append(out, statement{st.sql.String(), st.args})
		}
	}
	st := lq.pageStmt()
	return append(out, statement{st.sql.String(), st.args}), nil
}

// exportSelect is the SELECT whose rows an export of dataset with no filter writes, in one
// statement: what DuckDB's own COPY ... TO is timed with beside the console's export.
func exportSelect(dataset string) (string, error) {
	t := tableNamed(dataset)
	if t == nil {
		return "", fmt.Errorf("no dataset %q", dataset)
	}
	cols := ""
	for i, c := range t.Cols {
		if i > 0 {
			cols += ", "
		}
		cols += schema.QuoteIdent(c.Name)
	}
	return "SELECT " + cols + " FROM " + t.from.String() + " AS t ORDER BY _row", nil
}

// benchStatements are the statements bench/console times on DuckDB alone: the products list's, by the
// name of its case, and the export's SELECT.
type benchStatements struct {
	Lists  map[string][]statement `json:"lists"`
	Export string                 `json:"export"`
}

// TestBenchStatements writes the statements bench/console times to $CTOOL_BENCH_STATEMENTS when it is
// set (bench/console.sh sets it); either way, each case's statements end with the page and carry
// its filters.
func TestBenchStatements(t *testing.T) {
	cases := map[string]string{
		"products list, facets": "",
		// カカオ is in about one description in sixteen of the generated data (チョコ in none).
		"products search かかお":                             "q=" + url.QueryEscape("かかお"),
		"products search ｶｶｵ, tag facet, sorted by price": "q=" + url.QueryEscape("ｶｶｵ") + "&tag=" + url.QueryEscape("スイーツ") + "&_sort=price_yen",
	}
	out := benchStatements{Lists: map[string][]statement{}}
	for name, q := range cases {
		stmts, err := listStatements("products", q, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(stmts) < 2 {
			t.Fatalf("%s: %d statements, want the facets' and the page's", name, len(stmts))
		}
		if q != "" && len(stmts[len(stmts)-1].Args) == 0 {
			t.Errorf("%s: the page's statement binds nothing of %q", name, q)
		}
		out.Lists[name] = stmts
	}
	var err error
	if out.Export, err = exportSelect("products"); err != nil {
		t.Fatal(err)
	}
	if path := os.Getenv("CTOOL_BENCH_STATEMENTS"); path != "" {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
