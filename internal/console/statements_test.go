package console

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
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
// name of its case; the same of each search with plain DuckDB's ILIKE in place of the folded search
// (Baselines); and the export's SELECT.
type benchStatements struct {
	Lists     map[string][]statement `json:"lists"`
	Baselines map[string][]statement `json:"baselines"`
	Export    string                 `json:"export"`
}

// benchCases are the list pages bench/console times, by name, as URL queries.
var benchCases = map[string]string{
	"products list, facets": "",
	// カカオ is in about one description in sixteen of the generated data (チョコ in none).
	"products search かかお":                             "q=" + url.QueryEscape("かかお"),
	"products search ｶｶｵ, tag facet, sorted by price": "q=" + url.QueryEscape("ｶｶｵ") + "&tag=" + url.QueryEscape("スイーツ") + "&_sort=price_yen",
	"products search 抹茶 ﾗﾃ":                           "q=" + url.QueryEscape("抹茶 ﾗﾃ"),
	"products sorted by price":                        "_sort=price_yen",
	"products last page":                              "_page=20000",
}

// ilikeBaseline is a search's statements as plain DuckDB would write them without folding: each
// column's regexp_matches(col, pattern) as col ILIKE '%word%', the word as the search folds it (so
// that it finds the katakana of a search typed in hiragana, as the console does).
func ilikeBaseline(stmts []statement, terms []string) []statement {
	patterns := map[string]string{}
	for _, term := range terms {
		patterns[Pattern(term)] = "%" + term + "%"
	}
	re := regexp.MustCompile(`regexp_matches\(("[a-z_]+"), \?\)`)
	out := make([]statement, len(stmts))
	for i, st := range stmts {
		args := make([]any, len(st.Args))
		for j, a := range st.Args {
			args[j] = a
			if s, ok := a.(string); ok && patterns[s] != "" {
				args[j] = patterns[s]
			}
		}
		out[i] = statement{SQL: re.ReplaceAllString(st.SQL, "$1 ILIKE ?"), Args: args}
	}
	return out
}

// TestBenchStatements writes the statements bench/console times to $CTOOL_BENCH_STATEMENTS when it is
// set (bench/console.sh sets it); either way, each case's statements end with the page and carry
// its filters, and each search's baseline runs ILIKE on every column the search reads.
func TestBenchStatements(t *testing.T) {
	out := benchStatements{Lists: map[string][]statement{}, Baselines: map[string][]statement{}}
	for name, q := range benchCases {
		stmts, err := listStatements("products", q, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(stmts) < 2 {
			t.Fatalf("%s: %d statements, want the facets' and the page's", name, len(stmts))
		}
		if q != "" && strings.Contains(q, "=") && !strings.HasPrefix(q, "_") && len(stmts[len(stmts)-1].Args) == 0 {
			t.Errorf("%s: the page's statement binds nothing of %q", name, q)
		}
		out.Lists[name] = stmts
		values, _ := url.ParseQuery(q)
		if typed := values.Get("q"); typed != "" {
			base := ilikeBaseline(stmts, Terms(typed))
			for i, st := range base {
				if strings.Contains(st.SQL, "regexp_matches") || strings.Count(st.SQL, "ILIKE") != strings.Count(stmts[i].SQL, "regexp_matches") {
					t.Errorf("%s: baseline statement %d: %s", name, i, st.SQL)
				}
			}
			out.Baselines[name] = base
		}
	}
	if len(out.Baselines) != 3 {
		t.Errorf("%d baselines, want one for each of the 3 searches", len(out.Baselines))
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
