package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"

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

func specHas(s *spec, names ...string) error {
	for _, n := range names {
		found := false
		for _, f := range s.fields {
			found = found || f.name == n
		}
		if !found {
			return fmt.Errorf("the walk's %s has no field %q", s.what, n)
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
		s, ok := exprSpecs[rc.class]
		if !ok {
			t.Errorf("%s: the walk has no class %s", typ, rc.class)
			continue
		}
		if err := specHas(s, rc.fields...); err != nil {
			t.Error(err)
		}
	}
	for _, err := range []error{
		specHas(nodeSpecs["SELECT_NODE"], "where_clause", "from_table", "cte_map"),
		specHas(fromSpecs["JOIN"], "left", "right"),
		specHas(fromSpecs["BASE_TABLE"], "table_name", "alias", "schema_name", "catalog_name"),
		specHas(withSpec, "map"),
		specHas(cteEntry, "key"),
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
	stmt, err := Parse(context.Background(), conn, q)
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

func TestCounterBuildsFromParts(t *testing.T) {
	conn := standIn(t)
	stmt, err := Parse(context.Background(), conn, "WITH w AS (SELECT 1) SELECT name FROM stores WHERE category = 'cafe' AND (name LIKE 'A%' OR name = 'B') AND n > 1")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := TopSelect(stmt)
	parts := s.AndParts()
	if len(parts) != 3 {
		t.Fatalf("%d AND parts, want 3", len(parts))
	}
	c, ok := NewCounter(context.Background(), conn, s, ForDataset(schema.Stores))
	if !ok {
		t.Fatal("no counter")
	}
	var got []string
	for _, p := range parts {
		text, ok := c.Condition(p)
		got = append(got, fmt.Sprintf("%s %v", text, ok))
	}
	count, ok := c.Count([]Expr{parts[0], parts[2]})
	if ok && count.run.text != wrapper(1) {
		t.Errorf("the count runs as %q, not as a checked query", count.run.text)
	}
	got = append(got, fmt.Sprintf("%s %v", count.args[0], ok))
	want := []string{
		"category = 'cafe' true",
		"(\"name\" ~~ 'A%') OR (\"name\" = 'B') true",
		"n > 1 true",
		"WITH w AS (SELECT 1)SELECT count_star() FROM stores WHERE ((category = 'cafe') AND (n > 1)) true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
