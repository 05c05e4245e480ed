package guard

import (
	"context"
	"errors"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/schema"
)

// FuzzGuard: Check never panics; it refuses with a *Rejection or returns exactly the fixed wrapper
// with the text as its argument (its own LIMIT raised by one: runsAsQuery), and then DuckDB's parse
// of that text names only relations, CTEs and
// functions the policy allows. A shape CheckShape accepts runs the fixed shape statement, and the
// guard accepts the query with any other values in its literals.
func FuzzGuard(f *testing.F) {
	for _, tc := range guardtest.Hostile("/tmp/ctool-out", testProfiles) {
		f.Add(tc.SQL)
	}
	for _, q := range guardtest.Legit() {
		f.Add(q)
	}
	conn := standIn(f)
	p := ForDataset(schema.Products)
	const rowCap = 10
	f.Fuzz(func(t *testing.T, q string) {
		ctx := context.Background()
		c, err := Check(ctx, conn, q, p, rowCap)
		if err != nil {
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Check(%q) failed outside the guard: %v", q, err)
			}
			if c != nil || rej.Error() == "" {
				t.Fatalf("Check(%q) = %v with rejection %q", q, c, rej.Error())
			}
			return
		}
		if c.run.text != "SELECT * FROM system.main.query(?) AS ctool_q LIMIT 11" || len(c.args) != 1 {
			t.Fatalf("Check(%q) = %#v, not the wrapper around one text", q, c)
		}
		runsAsQuery(t, conn, q, c, rowCap)
		// The text that runs is parsed again here, by the test, to look at it without the guard's scoping.
		text, _ := c.args[0].(string)
		stmt, err := parse(ctx, conn, text)
		if err != nil {
			t.Fatalf("Check accepted %q, whose statement %q does not parse as one statement: %v", q, text, err)
		}
		if why := namesOutsidePolicy(stmt, p); why != "" {
			t.Fatalf("Check accepted %q, which %s", q, why)
		}
		checkShapeOf(t, conn, q, p, rowCap)
	})
}

// otherLiterals are values a shape's parameters may carry instead of its query's own.
var otherLiterals = []string{guardtest.Secret, "') OR ('1'='1", "/tmp/x.csv", "", "2025-01-01"}

func checkShapeOf(t *testing.T, conn *testConn, q string, p Policy, rowCap int) {
	s, ok := Shape(q)
	if !ok {
		return
	}
	c, err := CheckShape(context.Background(), conn, q, s, p, rowCap)
	if err != nil {
		return
	}
	if len(c.args) != len(s.Literals) {
		t.Fatalf("CheckShape(%q) = %#v", q, c)
	}
	wantShapeRun(t, conn, s.Text, c, rowCap)
	for _, v := range otherLiterals {
		other := Shaped{Text: s.Text, Literals: make([]string, len(s.Literals))}
		for i := range other.Literals {
			other.Literals[i] = v
		}
		if _, err := Check(context.Background(), conn, other.Unshape(), p, rowCap); err != nil {
			var rej *Rejection
			if errors.As(err, &rej) && rej.Parse == "" {
				t.Fatalf("the shape of %q was accepted, but the guard refuses it with %q: %v", q, v, err)
			}
		}
	}
}

// namesOutsidePolicy walks the whole tree without the guard's scoping: every table read must be a
// policy relation or a CTE defined somewhere, every function allowed, every table function allowed,
// and there are no parameters.
func namesOutsidePolicy(stmt any, p Policy) string {
	ctes := map[string]bool{}
	var collect func(v any)
	collect = func(v any) {
		switch t := v.(type) {
		case astObj:
			if cm, ok := t["cte_map"].(astObj); ok {
				entries, _ := cm["map"].([]any)
				for _, e := range entries {
					if kv, ok := e.(astObj); ok {
						name, _ := kv["key"].(string)
						ctes[asciiLower(name)] = true
					}
				}
			}
			for _, x := range t {
				collect(x)
			}
		case []any:
			for _, x := range t {
				collect(x)
			}
		}
	}
	collect(stmt)

	var why string
	var walk func(v any, tableFunction bool)
	walk = func(v any, tableFunction bool) {
		if why != "" {
			return
		}
		switch t := v.(type) {
		case astObj:
			class, _ := t["class"].(string)
			typ, _ := t["type"].(string)
			name, _ := t["function_name"].(string)
			switch {
			case !astEmpty(t["named_param_map"]):
				why = "has named parameters"
			case typ == "BASE_TABLE":
				table, _ := t["table_name"].(string)
				if !astEmpty(t["schema_name"]) || !astEmpty(t["catalog_name"]) || !(p.Relations[asciiLower(table)] || ctes[asciiLower(table)]) {
					why = "reads table " + table
				}
			case tableFunction:
				if !allowedTableFunctions[asciiLower(name)] || !astEmpty(t["schema"]) || !astEmpty(t["catalog"]) {
					why = "calls table function " + name
				}
			case class == "FUNCTION" || class == "WINDOW":
				if !allowedFunctions[asciiLower(name)] && !p.Macros[asciiLower(name)] || !astEmpty(t["catalog"]) ||
					!astEmpty(t["schema"]) && !parserQualifiedFunctions[asciiLower(name)] {
					why = "calls function " + name
				}
			case class == "COLUMN_REF":
				names, _ := t["column_names"].([]any)
				if len(names) > 0 {
					last, _ := names[len(names)-1].(string)
					if fn, ok := sqlValueFunctions[asciiLower(last)]; ok && !allowedFunctions[fn] {
						why = "names " + last
					}
				}
			case class == "PARAMETER" || typ == "SHOW_REF":
				why = "has " + class + typ
			}
			for k, x := range t {
				walk(x, typ == "TABLE_FUNCTION" && k == "function")
			}
		case []any:
			for _, x := range t {
				walk(x, false)
			}
		}
	}
	walk(stmt, false)
	return why
}

// TestNamesOutsidePolicy checks the fuzzer's own oracle on parses the guard refuses.
func TestNamesOutsidePolicy(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM events", ""},
		{"WITH a AS (SELECT 1) SELECT * FROM a", ""},
		{"SELECT * FROM profiles", "reads table profiles"},
		{"SELECT * FROM main.events", "reads table events"},
		{"SELECT * FROM read_csv('x')", "calls table function read_csv"},
		{"SELECT version()", "calls function version"},
		{"SELECT user", "names user"},
		{"SELECT $name", "has named parameters"},
		{"SELECT ?", "has named parameters"},
		{"SELECT * FROM (DESCRIBE events)", "has SHOW_REF"},
	} {
		stmt, err := parse(context.Background(), conn, tc.sql)
		if err != nil {
			t.Fatalf("parse(%q): %v", tc.sql, err)
		}
		if got := namesOutsidePolicy(stmt, p); got != tc.want {
			t.Errorf("namesOutsidePolicy(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}
