package console

import (
	"fmt"
	"net/url"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
)

// Statement is one statement a list page runs, as text with its arguments: for benchmarks that run
// the same statements on DuckDB alone (bench/console), never for running them here.
type Statement struct {
	SQL  string
	Args []any
}

// ListStatements are the statements the list page of dataset runs for query (a URL's query string)
// at time now: each facet's counts, then the page.
func ListStatements(dataset, query string, now time.Time) ([]Statement, error) {
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
	var out []Statement
	for _, c := range t.Cols {
		if c.Facet {
			st := lq.facetStmt(c)
			out = append(out, Statement{st.sql.String(), st.args})
		}
	}
	st := lq.pageStmt()
	return append(out, Statement{st.sql.String(), st.args}), nil
}

// ExportSelect is the SELECT whose rows an export of dataset with no filter writes, in one
// statement: what DuckDB's own COPY ... TO is timed with beside the console's export.
func ExportSelect(dataset string) (string, error) {
	t := tableNamed(dataset)
	if t == nil {
		return "", fmt.Errorf("no dataset %q", dataset)
	}
	cols := ""
	for i, c := range t.shown() {
		if i > 0 {
			cols += ", "
		}
		cols += database.QuoteIdent(c.Name)
	}
	return "SELECT " + cols + " FROM " + t.from.String() + " AS t ORDER BY _row", nil
}
