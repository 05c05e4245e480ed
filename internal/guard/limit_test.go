package guard

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// TestOwnLimit: a top-level LIMIT n within the cap runs as LIMIT n+1 with the answer's rows n, so the
// statement returns one row more exactly when more match; any other LIMIT, and one inside a subquery
// or CTE, runs as written under the cap.
func TestOwnLimit(t *testing.T) {
	conn := standIn(t)
	p := policyWith(schema.Events, "fifty")
	const rowCap = 10
	for _, tc := range []struct {
		sql  string
		runs string   // the text that runs; "" for sql itself
		rows int      // Checked.Rows
		want []string // what the statement returns
	}{
		// More rows match than the LIMIT: one more comes back.
		{"SELECT i FROM fifty ORDER BY i LIMIT 3", "SELECT i FROM fifty ORDER BY i LIMIT 4", 3, ints(0, 4)},
		// Exactly n, and fewer: no row more.
		{"SELECT i FROM fifty WHERE i < 3 ORDER BY i LIMIT 3", "SELECT i FROM fifty WHERE i < 3 ORDER BY i LIMIT 4", 3, ints(0, 3)},
		{"SELECT i FROM fifty WHERE i < 2 ORDER BY i LIMIT 3", "SELECT i FROM fifty WHERE i < 2 ORDER BY i LIMIT 4", 3, ints(0, 2)},
		// With OFFSET: the rows after the offset count.
		{"SELECT i FROM fifty ORDER BY i LIMIT 3 OFFSET 46", "SELECT i FROM fifty ORDER BY i LIMIT 4 OFFSET 46", 3, ints(46, 50)},
		{"SELECT i FROM fifty ORDER BY i LIMIT 3 OFFSET 47", "SELECT i FROM fifty ORDER BY i LIMIT 4 OFFSET 47", 3, ints(47, 50)},
		{"SELECT i FROM fifty ORDER BY i OFFSET 47 LIMIT 3", "SELECT i FROM fifty ORDER BY i OFFSET 47 LIMIT 4", 3, ints(47, 50)},
		{"SELECT i FROM fifty ORDER BY i OFFSET 45", "", rowCap, ints(45, 50)},
		// ORDER BY ... LIMIT keeps the order.
		{"SELECT i FROM fifty ORDER BY i DESC LIMIT 2", "SELECT i FROM fifty ORDER BY i DESC LIMIT 3", 2, []string{"[49]", "[48]", "[47]"}},
		// A LIMIT of a set operation is the statement's own.
		{"SELECT i FROM fifty WHERE i < 2 UNION ALL SELECT i FROM fifty WHERE i > 47 ORDER BY i LIMIT 3",
			"SELECT i FROM fifty WHERE i < 2 UNION ALL SELECT i FROM fifty WHERE i > 47 ORDER BY i LIMIT 4", 3, []string{"[0]", "[1]", "[48]", "[49]"}},
		// A LIMIT inside a subquery, a CTE or a branch of a UNION is part of the query: no change.
		{"SELECT * FROM (SELECT i FROM fifty ORDER BY i LIMIT 3) ORDER BY i", "", rowCap, ints(0, 3)},
		{"WITH t AS (SELECT i FROM fifty ORDER BY i LIMIT 3) SELECT * FROM t ORDER BY i", "", rowCap, ints(0, 3)},
		{"(SELECT i FROM fifty ORDER BY i LIMIT 2) UNION ALL (SELECT i FROM fifty ORDER BY i DESC LIMIT 2) ORDER BY i", "", rowCap, []string{"[0]", "[1]", "[48]", "[49]"}},
		// LIMIT 0 fetches one row, to tell whether any matched.
		{"SELECT i FROM fifty ORDER BY i LIMIT 0", "SELECT i FROM fifty ORDER BY i LIMIT 1", 0, ints(0, 1)},
		{"SELECT i FROM fifty WHERE i < 0 LIMIT 0", "SELECT i FROM fifty WHERE i < 0 LIMIT 1", 0, nil},
		// The cap itself, and past it: the cap's row tells.
		{"SELECT i FROM fifty ORDER BY i LIMIT 10", "SELECT i FROM fifty ORDER BY i LIMIT 11", 10, ints(0, 11)},
		{"SELECT i FROM fifty ORDER BY i LIMIT 11", "", rowCap, ints(0, 11)},
		{"SELECT i FROM fifty ORDER BY i LIMIT ALL", "", rowCap, ints(0, 11)},
		{"SELECT i FROM fifty ORDER BY i LIMIT NULL", "", rowCap, ints(0, 11)},
		// Other spellings of the number, and text after it or before it in other scripts.
		{"SELECT i FROM fifty ORDER BY i FETCH FIRST 2 ROWS ONLY", "SELECT i FROM fifty ORDER BY i FETCH FIRST 3 ROWS ONLY", 2, ints(0, 3)},
		{"SELECT i FROM fifty ORDER BY i LIMIT (2)", "SELECT i FROM fifty ORDER BY i LIMIT (3)", 2, ints(0, 3)},
		{"SELECT i FROM fifty ORDER BY i LIMIT 0_9", "SELECT i FROM fifty ORDER BY i LIMIT 10", 9, ints(0, 10)},
		{"SELECT i FROM fifty ORDER BY i LIMIT 3 -- 三件", "SELECT i FROM fifty ORDER BY i LIMIT 4 -- 三件", 3, ints(0, 4)},
		{"SELECT i FROM fifty WHERE 'ヒルズ' <> '' ORDER BY i LIMIT 1", "SELECT i FROM fifty WHERE 'ヒルズ' <> '' ORDER BY i LIMIT 2", 1, ints(0, 2)},
	} {
		c, err := Check(context.Background(), conn, tc.sql, p, rowCap)
		if err != nil {
			t.Errorf("Check(%q): %v", tc.sql, err)
			continue
		}
		runs := tc.runs
		if runs == "" {
			runs = tc.sql
		}
		if c.run.text != wrapper(rowCap) || !reflect.DeepEqual(c.args, []any{runs}) || c.Rows() != tc.rows {
			t.Errorf("Check(%q) runs %q with %d rows, want %q with %d", tc.sql, c.args, c.Rows(), runs, tc.rows)
			continue
		}
		runsAsQuery(t, conn, tc.sql, c, rowCap)
		if _, got, err := rowsOf(context.Background(), conn, c.run.text, c.args...); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q returned %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
}

// TestOwnLimitRefused: a LIMIT whose rows are known only once it runs, or whose number cannot be
// changed alone, is refused with what to write instead; a negative one is DuckDB's to refuse.
func TestOwnLimitRefused(t *testing.T) {
	conn := standIn(t)
	p := policyWith(schema.Events, "fifty")
	for _, tc := range []struct{ sql, want string }{
		{"SELECT * FROM fifty LIMIT 10%", "refused: LIMIT in percent."},
		{"SELECT * FROM fifty LIMIT 100 PERCENT", "refused: LIMIT in percent."},
		{"SELECT * FROM fifty LIMIT (SELECT 3)", "refused: a LIMIT that is an expression."},
		{"SELECT * FROM fifty LIMIT 1 + 1", "refused: a LIMIT that is an expression."},
		{"SELECT * FROM fifty LIMIT +3", "refused: a LIMIT that is an expression."},
		{"SELECT * FROM fifty LIMIT 2.5", "refused: a LIMIT that is not a whole number."},
		{"SELECT * FROM fifty LIMIT '3'", "refused: a LIMIT that is not a whole number."},
		{"SELECT * FROM fifty FETCH FIRST ROW ONLY", "refused: this LIMIT."},
	} {
		c, err := Check(context.Background(), conn, tc.sql, p, 10)
		var rej *Rejection
		if c != nil || !errors.As(err, &rej) || !strings.HasPrefix(rej.Error(), tc.want) || !strings.Contains(rej.Error(), "LIMIT 5") {
			t.Errorf("Check(%q) = %v, %v; want a refusal %q that says to write LIMIT 5", tc.sql, c, err, tc.want)
		}
	}
	c, err := Check(context.Background(), conn, "SELECT * FROM fifty LIMIT -1", p, 10)
	if err != nil || !reflect.DeepEqual(c.args, []any{"SELECT * FROM fifty LIMIT -1"}) || c.Rows() != 10 {
		t.Errorf("LIMIT -1: %v, %v; want it run as written, for DuckDB's own error", c, err)
	}
}

// TestOwnLimitOfShape: a shape's statement runs its LIMIT n as n+1, as Check does, and its queries'
// answers keep n rows.
func TestOwnLimitOfShape(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Stores)
	q := "SELECT store_name FROM stores WHERE category <> 'x' ORDER BY store_name LIMIT 2"
	s, _ := Shape(q)
	c, err := CheckShape(context.Background(), conn, q, s, p, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := shapeRunSQL("SELECT store_name FROM stores WHERE category <> ? ORDER BY store_name LIMIT 3", 10)
	if c.run.text != want || c.Rows() != 2 {
		t.Fatalf("CheckShape(%q) runs %q with %d rows, want %q with 2", q, c.run.text, c.Rows(), want)
	}
	other, ok := c.ForShape(Shaped{Text: s.Text, Literals: []string{"y"}})
	if !ok || other.Rows() != 2 || other.run.text != want {
		t.Errorf("ForShape: %v %v, want the same statement and rows", other, ok)
	}
}

// ints is ["[from]" ... "[to-1]"], as rowsOf prints a column of integers.
func ints(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, "["+strconv.Itoa(i)+"]")
	}
	return out
}

// runsAsQuery checks the text c runs for q, on DuckDB's parse of both: q itself with the answer's
// rows at the cap, or, when q's top-level LIMIT is a number n within the cap, q's tree with that
// number n+1 and nothing else changed, with n rows.
func runsAsQuery(t *testing.T, conn *testConn, q string, c *Checked, rowCap int) {
	t.Helper()
	text, _ := c.args[0].(string)
	wantRaised(t, conn, q, text, c.Rows(), rowCap)
}

// wantShapeRun checks the statement of a shape as runsAsQuery checks a query's.
func wantShapeRun(t *testing.T, conn *testConn, shape string, c *Checked, rowCap int) {
	t.Helper()
	head, tail := "SELECT * FROM (\n", "\n) AS ctool_q LIMIT "+strconv.Itoa(rowCap+1)
	if !strings.HasPrefix(c.run.text, head) || !strings.HasSuffix(c.run.text, tail) {
		t.Fatalf("the shape %q runs %q, not under the cap", shape, c.run.text)
	}
	wantRaised(t, conn, shape, strings.TrimSuffix(strings.TrimPrefix(c.run.text, head), tail), c.Rows(), rowCap)
}

func wantRaised(t *testing.T, conn *testConn, q, runs string, rows, rowCap int) {
	t.Helper()
	ctx := context.Background()
	qTree, err := parse(ctx, conn, q)
	if err != nil {
		t.Fatalf("parsing %q: %v", q, err)
	}
	n, ok := testLimit(qTree)
	if !ok || n > rowCap {
		if runs != q || rows != rowCap {
			t.Fatalf("%q runs as %q with %d rows; want it as it is, with %d", q, runs, rows, rowCap)
		}
		return
	}
	runTree, err := parse(ctx, conn, runs)
	if err != nil {
		t.Fatalf("%q runs as %q, which does not parse: %v", q, runs, err)
	}
	if m, _ := testLimit(runTree); rows != n || m != n+1 {
		t.Fatalf("%q (LIMIT %d) runs as %q (LIMIT %d) with %d rows", q, n, runs, m, rows)
	}
	a, b := withoutLimitValue(qTree), withoutLimitValue(runTree)
	if cmp := (shapeComparer{exact: true}); !cmp.same(a, b, "") {
		t.Fatalf("%q runs as %q, which differs in more than its LIMIT: %s", q, runs, cmp.why)
	}
}

// testLimit is the statement's top-level LIMIT when it is an integer constant, read here apart
// from the guard's own reading.
func testLimit(stmt astObj) (int, bool) {
	node, _ := stmt["node"].(astObj)
	mods, _ := node["modifiers"].([]any)
	for _, m := range mods {
		mod, _ := m.(astObj)
		lim, _ := mod["limit"].(astObj)
		val, _ := lim["value"].(astObj)
		num, isNum := val["value"].(json.Number)
		if mod["type"] != "LIMIT_MODIFIER" || lim["class"] != "CONSTANT" || !isNum {
			continue
		}
		n, err := strconv.Atoi(num.String())
		return n, err == nil && n >= 0
	}
	return 0, false
}

// withoutLimitValue is the statement's node, as JSON decoded again, with its top-level LIMIT's
// constant taken out.
func withoutLimitValue(stmt astObj) any {
	b, _ := json.Marshal(stmt["node"])
	var node astObj
	if err := unmarshalNumbers(b, &node); err != nil {
		panic(err)
	}
	mods, _ := node["modifiers"].([]any)
	for _, m := range mods {
		if mod, _ := m.(astObj); mod["type"] == "LIMIT_MODIFIER" {
			if lim, ok := mod["limit"].(astObj); ok {
				delete(lim, "value")
			}
		}
	}
	return node
}
