package guard

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/schema"
)

func TestShape(t *testing.T) {
	for _, tc := range []struct {
		text, shape string
		literals    []string // nil: no shape
	}{
		{"SELECT a FROM t WHERE c = 'x'", "SELECT a FROM t WHERE c = ?", []string{"x"}},
		{"SELECT a FROM t WHERE c = 'it''s' AND d IN ('a','b')", "SELECT a FROM t WHERE c = ? AND d IN (?,?)", []string{"it's", "a", "b"}},
		{`SELECT "it's" FROM t WHERE "a""'b" = ''`, `SELECT "it's" FROM t WHERE "a""'b" = ?`, []string{""}},
		{"SELECT a FROM t WHERE c = '麻布台\n--x /*y*/ $1 ? \\'", "SELECT a FROM t WHERE c = ?", []string{"麻布台\n--x /*y*/ $1 ? \\"}},
		{"SELECT a FROM t WHERE c=1", "", nil},                                      // no literal
		{"SELECT a FROM t -- c = 'x'\nWHERE c = 'x'", "", nil},                      // a comment
		{"SELECT a FROM t /* 'x */ WHERE c = 'x'", "", nil},                         // a block comment
		{"SELECT a FROM t WHERE c = E'x\\'' OR c = 'y'", "", nil},                   // an escape string
		{"SELECT a FROM t WHERE c = U&'x' ", "", nil},                               // a unicode string
		{"SELECT a FROM t WHERE c = X'00' ", "", nil},                               // a blob
		{"SELECT a FROM t WHERE c = 麻'x'", "", nil},                                 // a word before a quote
		{"SELECT a FROM t WHERE c = $$x$$ OR c = 'y'", "", nil},                     // a dollar quote
		{"SELECT a FROM t WHERE c = $1 OR c = 'y'", "", nil},                        // a parameter
		{"SELECT a FROM t WHERE c = ? OR c = 'y'", "", nil},                         // a parameter
		{"SELECT a FROM t WHERE c = 'x", "", nil},                                   // unterminated
		{`SELECT "a FROM t WHERE c = 'x'`, "", nil},                                 // unterminated identifier
		{"SELECT a FROM t WHERE c = 'x' \\ 'y'", "", nil},                           // a backslash outside a literal
		{"SELECT a FROM t WHERE c = 'x\x00'", "", nil},                              // NUL: the guard refuses it
		{"SELECT a FROM t WHERE c = '\xff'", "", nil},                               // not UTF-8
		{"SELECT 1 WHERE 'a' = 'b'" + strings.Repeat(" OR 'c' = 'd'", 16), "", nil}, // over maxShapeLiterals
	} {
		s, ok := Shape(tc.text)
		if ok != (tc.literals != nil) || s.Text != tc.shape || !reflect.DeepEqual(s.Literals, tc.literals) {
			t.Errorf("Shape(%q) = %q %q %v, want %q %q", tc.text, s.Text, s.Literals, ok, tc.shape, tc.literals)
			continue
		}
		if ok && s.Unshape() != tc.text {
			t.Errorf("Shape(%q).Unshape() = %q", tc.text, s.Unshape())
		}
	}
}

// FuzzShape: a shape always rebuilds its text exactly, never holds a quote of a literal, and
// shaping is stable.
func FuzzShape(f *testing.F) {
	for _, s := range []string{"SELECT a FROM t WHERE c = 'x'", `SELECT "q'" FROM t WHERE c IN ('a''b', '')`, "'", "''''", `"?"'?'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, ok := Shape(text)
		if !ok {
			return
		}
		if s.Unshape() != text {
			t.Fatalf("Shape(%q).Unshape() = %q", text, s.Unshape())
		}
		again, ok := Shape(s.Unshape())
		if !ok || again.Text != s.Text || !reflect.DeepEqual(again.Literals, s.Literals) {
			t.Fatalf("shaping %q twice differs", text)
		}
	})
}

func TestCheckShape(t *testing.T) {
	conn := standIn(t)
	ctx := context.Background()
	p := ForDataset(schema.Stores)
	for _, tc := range []struct {
		query string
		ok    bool
	}{
		{"SELECT store_name FROM stores WHERE category = 'cafe' AND store_id <> 'X-1'", true},
		{"SELECT store_name FROM stores WHERE category IN ('cafe', 'bakery') OR store_id BETWEEN 'S001' AND 'S002'", true},
		{"SELECT product_name FROM products WHERE product_description LIKE '%円%' OR contains(tag, 'drink')", true},
		{"SELECT store_name FROM stores WHERE lower(category) NOT IN ('x') ORDER BY store_name LIMIT 3", true},
		{"WITH c AS (SELECT * FROM stores WHERE category = 'cafe') SELECT store_name FROM c", true},
		{"SELECT 'x' AS tag, store_name FROM stores WHERE category = 'cafe'", false},        // a literal in the SELECT list
		{"SELECT store_name FROM stores WHERE category = upper('cafe')", false},             // an argument of another function
		{"SELECT date_trunc('month', DATE '2025-01-02') AS m FROM stores", false},           // a date part
		{"SELECT list_aggr([1, 2], 'sum') AS s FROM stores WHERE category = 'cafe'", false}, // a function's name
		{"SELECT store_name FROM stores WHERE category = CAST('cafe' AS VARCHAR)", false},   // a cast
		{"SELECT store_name FROM stores WHERE category = 'ca' 'fe'", false},                 // no such grammar
		{"SELECT store_name FROM stores WHERE category = 'ca'\n'fe'", false},                // the lexer joins them
		{"SELECT store_name FROM stores WHERE category = 'cafe';", false},                   // cannot be wrapped
		{"SELECT store_name FROM stores WHERE category = 'cafe') UNION (SELECT 'x'", false}, // not a query
		{"SELECT * FROM profiles WHERE profile_id = 'p-secret'", false},                     // refused by the guard
		{"SELECT store_name FROM stores WHERE category = 'cafe' AND current_setting('x') = 'y'", false},
	} {
		s, ok := Shape(tc.query)
		if !ok {
			t.Fatalf("Shape(%q) found no shape", tc.query)
		}
		c, err := CheckShape(ctx, conn, tc.query, s, p, 10)
		if !tc.ok {
			var rej *Rejection
			if c != nil || err == nil || (!errors.As(err, &rej) && !strings.Contains(err.Error(), "syntax")) {
				t.Errorf("CheckShape(%q) = %v, %v; want a refusal", tc.query, c, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("CheckShape(%q): %v", tc.query, err)
			continue
		}
		if len(c.args) != len(s.Literals) {
			t.Errorf("CheckShape(%q) = %#v, want the literals as its arguments", tc.query, c)
		}
		wantShapeRun(t, conn, s.Text, c, 10)
		_, want, err := rowsOf(ctx, conn, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := rowsOf(ctx, conn, c.run.text, c.args...)
		if err != nil {
			t.Errorf("running the shape of %q: %v", tc.query, err)
		}
		if len(got) > c.Rows() { // the row past the query's own LIMIT
			got = got[:c.Rows()]
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the shape of %q gave %v, want %v", tc.query, got, want)
		}
	}
}

// TestCheckShapeRefusesHostile: no query of the hostile corpus gets a shape's statement, whatever
// its literals.
func TestCheckShapeRefusesHostile(t *testing.T) {
	conn := standIn(t)
	shaped := 0
	for _, tc := range guardtest.Hostile("/tmp/ctool-out", testProfiles) {
		s, ok := Shape(tc.SQL)
		if !ok {
			continue
		}
		shaped++
		if c, err := CheckShape(context.Background(), conn, tc.SQL, s, ForDataset(schema.Products), 10); c != nil || err == nil {
			t.Errorf("%s: CheckShape(%q) = %v, %v; want a refusal", tc.Name, tc.SQL, c, err)
		}
	}
	if shaped < 50 {
		t.Errorf("only %d hostile queries have a shape; the test reads too little", shaped)
	}
}

// TestShapeRunStatementIsExact: a shape whose running statement would read as something else than
// the shape under the cap is refused, even when the guard accepts what it reads.
func TestShapeRunStatementIsExact(t *testing.T) {
	conn := standIn(t)
	ctx := context.Background()
	shape, err := parse(ctx, conn, "SELECT store_name FROM stores WHERE category = ?")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS ctool_q LIMIT 12",
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS ctool_q LIMIT 11 OFFSET 1",
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS other LIMIT 11",
		"SELECT *, 1 FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ? OR true\n) AS ctool_q LIMIT 11",
		"SELECT * FROM (\nSELECT store_name FROM stores WHERE category = ?\n) AS ctool_q WHERE true LIMIT 11",
	} {
		tree, err := parse(ctx, conn, run)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := isShapeRun(tree, shape, 10), strings.HasSuffix(run, "AS ctool_q LIMIT 11") && !strings.Contains(run, "OR true") && !strings.Contains(run, "*, 1"); got != want {
			t.Errorf("isShapeRun(%q) = %v, want %v", run, got, want)
		}
	}
}
