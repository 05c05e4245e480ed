package querytree

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// readClass is the walk's class of each node type the reader knows, and the fields it reads there.
var readClass = map[string]struct {
	class  string
	fields []string
}{
	"CONJUNCTION_AND": {"CONJUNCTION", []string{"children"}},
	"CONJUNCTION_OR":  {"CONJUNCTION", []string{"children"}},
	"COMPARE_EQUAL":   {"COMPARISON", []string{"left", "right"}},
	"COMPARE_IN":      {"OPERATOR", []string{"children"}},
	"FUNCTION":        {"FUNCTION", []string{"function_name", "children"}},
	"COLUMN_REF":      {"COLUMN_REF", []string{"column_names"}},
	"VALUE_CONSTANT":  {"CONSTANT", []string{"value"}},
}

func specHas(kind string, names ...string) error {
	walked := guard.WalkedFields(kind)
	if walked == nil {
		return fmt.Errorf("the walk has no %s", kind)
	}
	for _, n := range names {
		if !slices.Contains(walked, n) {
			return fmt.Errorf("the walk's %s has no field %q", kind, n)
		}
	}
	return nil
}

// TestReaderReadsWhatTheWalkKnows: every node kind and field read.go reads is one the walk checks, so
// the guard refuses an AST the reader would misread.
func TestReaderReadsWhatTheWalkKnows(t *testing.T) {
	for typ := range readOps {
		rc, ok := readClass[typ]
		if !ok {
			t.Errorf("read.go knows %s, this test does not", typ)
			continue
		}
		if err := specHas("expression "+rc.class, rc.fields...); err != nil {
			t.Error(err)
		}
	}
	for _, err := range []error{
		specHas("node SELECT_NODE", "where_clause", "from_table", "cte_map"),
		specHas("from JOIN", "left", "right"),
		specHas("from BASE_TABLE", "table_name", "alias", "schema_name", "catalog_name"),
		specHas("with", "map"),
		specHas("cte", "key"),
		specHas("expression SUBQUERY", "subquery"),
		specHas("statement", "node", "named_param_map"),
	} {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestReaderFindsConditions parses a known query with DuckDB: if a DuckDB release changes the shape of
// its AST, this fails here rather than the empty-result hints going quiet.
func TestReaderFindsConditions(t *testing.T) {
	conn := standIn(t)
	const q = `WITH c AS (SELECT 1 AS x) SELECT s.store_name FROM stores s JOIN products p ON true
		WHERE s.category = 'cafe' AND (p.tag IN ('a', 'b') OR p.product_name LIKE '%x%') AND NOT EXISTS (SELECT 1 FROM c)`
	stmt, err := guard.Parse(context.Background(), conn, q)
	if err != nil {
		t.Fatal(err)
	}
	selects, ctes := Selects(stmt)
	if len(selects) != 3 || !ctes["c"] {
		t.Fatalf("%d SELECTs, CTEs %v; want 3 and c", len(selects), ctes)
	}
	top, ok := TopSelect(stmt)
	if !ok || !top.CTEs()["c"] {
		t.Fatalf("top SELECT %v, its CTEs %v", ok, top.CTEs())
	}
	if got := fmt.Sprint(top.Tables()); got != "[{stores s  } {products p  }]" {
		t.Errorf("tables %s", got)
	}
	if got, want := describe(top.Where()), "AND(=(col[s category], 'cafe'), OR(IN(col[p tag], 'a', 'b'), ~~(col[p product_name], '%x%')), ?)"; got != want {
		t.Errorf("WHERE read as\n%s\nwant\n%s", got, want)
	}
	top.Where().Walk(func(e Expr) bool {
		if rc, ok := readClass[astStr(e.o, "type")]; ok && astStr(e.o, "class") != rc.class {
			t.Errorf("%s has class %s, the reader expects %s", astStr(e.o, "type"), astStr(e.o, "class"), rc.class)
		}
		return true
	})
}

// describe writes an expression as the reader sees it.
func describe(e Expr) string {
	args := func(name string) string {
		var parts []string
		for _, a := range e.Args() {
			parts = append(parts, describe(a))
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	}
	switch e.Op() {
	case OpAnd:
		return args("AND")
	case OpOr:
		return args("OR")
	case OpEqual:
		return args("=")
	case OpIn:
		return args("IN")
	case OpFunction:
		return args(e.Function())
	case OpColumn:
		return fmt.Sprint("col", e.ColumnNames())
	case OpConstant:
		if s, ok := e.Text(); ok {
			return "'" + s + "'"
		}
	}
	return "?"
}

// TestDerivedStatements: statements written from a query's pieces come back from DuckDB as SQL that
// runs only as a checked query, and writing them changes neither the query's tree nor the template's.
func TestDerivedStatements(t *testing.T) {
	ctx := context.Background()
	conn := standIn(t)
	const q = "WITH w AS (SELECT 1) SELECT name FROM stores s WHERE category = 'cafe' AND (name LIKE 'A%' OR name = 'B') AND n > 1"
	stmt, err := guard.Parse(ctx, conn, q)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(stmt)
	s, _ := TopSelect(stmt)
	parts := s.AndParts()
	if len(parts) != 3 {
		t.Fatalf("%d AND parts, want 3", len(parts))
	}
	count, ok := Template(ctx, conn, "SELECT count(*)")
	if !ok {
		t.Fatal("no template")
	}
	tmpl, ok := Template(ctx, conn, "SELECT x.name FROM stores AS x WHERE EXISTS (SELECT 1 WHERE ctool_s.n = x.n)")
	if !ok {
		t.Fatal("no template")
	}
	exists := tmpl.Where()
	inner, ok := exists.Subquery()
	if !ok {
		t.Fatal("the template's EXISTS has no SELECT")
	}
	renamed := s.From().Renamed(func(tb Table) string {
		if tb.Name == "stores" {
			return "products"
		}
		return ""
	})
	sels := []Select{
		count.With(Pieces{From: s.From(), CTEs: s, Where: And(parts[0], parts[2])}),
		count.With(Pieces{From: s.From(), CTEs: s, List: append(append([]Expr{}, parts...), count.List()...), GroupAll: true}),
		count.With(Pieces{Where: parts[1]}),
		tmpl.With(Pieces{Where: exists.WithSubquery(inner.With(Pieces{From: renamed, Where: Or(parts[0], inner.Where().Renamed("CTOOL_S", "s"))}))}),
	}
	texts, ok := Deparse(ctx, conn, sels...)
	if !ok {
		t.Fatal("DuckDB could not write them back")
	}
	want := []string{
		"WITH w AS (SELECT 1)SELECT count_star() FROM stores AS s WHERE ((category = 'cafe') AND (n > 1))",
		`WITH w AS (SELECT 1)SELECT (category = 'cafe'), (("name" ~~ 'A%') OR ("name" = 'B')), (n > 1), count_star() FROM stores AS s GROUP BY ALL`,
		`SELECT count_star() WHERE (("name" ~~ 'A%') OR ("name" = 'B'))`,
		`SELECT x."name" FROM stores AS x WHERE EXISTS(SELECT 1 FROM products AS s WHERE ((category = 'cafe') OR (s.n = x.n)))`,
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	checked, err := guard.Check(ctx, conn, texts[0], guard.ForDataset(schema.Stores), 1)
	if err != nil || checked.Text() != "SELECT * FROM system.main.query(?) AS ctool_q LIMIT 2" || checked.Args()[0] != texts[0] {
		t.Errorf("the count runs as %v %v, not as a checked query (%v)", checked, err, err)
	}
	if after, _ := json.Marshal(stmt); string(after) != string(before) {
		t.Error("writing the statements changed the query's tree")
	}
	if again, _ := Template(ctx, conn, "SELECT count(*)"); len(again.List()) != 1 || again.Where().Valid() {
		t.Error("writing the statements changed the template")
	}
}

// TestContains: a node is found in the tree it belongs to, through subqueries, and an equal node of
// another tree is not.
func TestContains(t *testing.T) {
	conn := standIn(t)
	const q = "SELECT 1 FROM stores WHERE n IN (SELECT n FROM stores WHERE category = 'x') AND category = 'x'"
	a, _ := guard.Parse(context.Background(), conn, q)
	b, _ := guard.Parse(context.Background(), conn, q)
	sa, _ := TopSelect(a)
	sb, _ := TopSelect(b)
	pa, pb := sa.AndParts(), sb.AndParts()
	inner, ok := pa[0].Subquery() // IN (SELECT ...) is a subquery of type ANY
	if !ok {
		t.Fatal("no subquery")
	}
	switch {
	case !pa[0].Contains(inner.Where()):
		t.Error("a subquery's WHERE is not found in its part")
	case pa[1].Contains(inner.Where()):
		t.Error("found in the wrong part")
	case pa[1].Contains(pb[1]) || !pa[1].Contains(pa[1]):
		t.Error("Contains compares values, not nodes")
	}
}

// TestFromWithout: a table left out of a join takes its join condition with it; a FROM of that table
// alone is none.
func TestFromWithout(t *testing.T) {
	ctx := context.Background()
	conn := standIn(t)
	count, _ := Template(ctx, conn, "SELECT count(*)")
	for _, tc := range []struct{ q, want string }{
		{"SELECT 1 FROM stores s JOIN products p ON p.n = s.n", "SELECT count_star() FROM stores AS s"},
		{"SELECT 1 FROM products p JOIN stores s ON p.n = s.n JOIN stores t USING (n)", "SELECT count_star() FROM stores AS s INNER JOIN stores AS t USING (n)"},
		{"SELECT 1 FROM stores s, (SELECT * FROM products) p", "SELECT count_star() FROM stores AS s , (SELECT * FROM products) AS p"},
		{"SELECT 1 FROM products", ""},
	} {
		stmt, err := guard.Parse(ctx, conn, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := TopSelect(stmt)
		from, ok := s.From().Without(func(t Table) bool { return t.Name == "products" })
		if !ok {
			if tc.want != "" {
				t.Errorf("%s: no table left", tc.q)
			}
			continue
		}
		texts, ok := Deparse(ctx, conn, count.With(Pieces{From: from}))
		if !ok || texts[0] != tc.want {
			t.Errorf("%s: without products\n%q\nwant\n%q", tc.q, texts, tc.want)
		}
	}
}
