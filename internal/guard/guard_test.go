package guard

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema"
)

// testProfiles stands for the profiles file in the hostile corpus; nothing reads it.
const testProfiles = "/srv/ctool/data/ctool.profiles-0123abcd.duckdb"

// policyWith is d's policy with extra relations allowed (fifty, for the row-cap tests).
func policyWith(d *schema.Dataset, extra ...string) Policy {
	p := ForDataset(d)
	for _, r := range extra {
		p.Relations[r] = true
	}
	return p
}

func wrapper(rowCap int) string {
	return fmt.Sprintf("SELECT * FROM system.main.query(?) AS ctool_q LIMIT %d", rowCap+1)
}

// rowsOf runs q and returns its column names and each row printed, in the order DuckDB gave them.
func rowsOf(ctx context.Context, conn *testConn, q string, args ...any) ([]string, []string, error) {
	rows, err := conn.raw.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	cols, values, err := querytest.Rows(rows)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for _, vals := range values {
		out = append(out, fmt.Sprintf("%v", vals))
	}
	return cols, out, nil
}

// runChecked checks q and runs the statement Check returns.
func runChecked(t *testing.T, conn *testConn, q string, p Policy, rowCap int) []string {
	t.Helper()
	c, err := Check(context.Background(), conn, q, p, rowCap)
	if err != nil {
		t.Fatalf("Check(%q): %v", q, err)
	}
	_, rows, err := rowsOf(context.Background(), conn, c.run.text, c.args...)
	if err != nil {
		t.Fatalf("running %q: %v", q, err)
	}
	return rows
}

func TestForDataset(t *testing.T) {
	relations := map[string]bool{}
	for _, r := range guardtest.StandInRelations {
		relations[r] = true
	}
	macros := map[string]bool{"fold": true, "is_open": true, "tokyo_now": true}
	for _, tc := range []struct {
		dataset *schema.Dataset
		want    Policy
	}{
		{schema.Events, Policy{Relations: relations, Macros: macros}},
		{schema.Stores, Policy{Relations: relations, Macros: macros}},
		{schema.Products, Policy{Relations: relations, Macros: macros, Hidden: []string{"store_id"}}},
		{schema.Profiles, Policy{Relations: relations, Macros: macros}},
	} {
		if got := ForDataset(tc.dataset); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ForDataset(%s) = %#v, want %#v", tc.dataset.Name, got, tc.want)
		}
	}
}

func TestIsHidden(t *testing.T) {
	p := Policy{Hidden: []string{"store_id"}}
	for _, tc := range []struct {
		column string
		want   bool
	}{
		{"store_id", true},
		{"STORE_ID", true},
		{"Store_Id", true},
		{"store_id_1", true},
		{"store_id_12", true},
		{"store_id_", false},
		{"store_id1", false},
		{"store_id_x", false},
		{"store_ids", false},
		{"store_name", false},
		{"id", false},
		{"", false},
	} {
		if got := p.IsHidden(tc.column); got != tc.want {
			t.Errorf("IsHidden(%q) = %v, want %v", tc.column, got, tc.want)
		}
	}
	if (Policy{}).IsHidden("store_id") {
		t.Error("a policy without hidden columns hides store_id")
	}
}

func TestHostileCorpusIsRefused(t *testing.T) {
	cases := guardtest.Hostile("/tmp/ctool-out", testProfiles)
	if len(cases) < 300 {
		t.Fatalf("hostile corpus has %d cases, want at least 300", len(cases))
	}
	placeholder := regexp.MustCompile(`\$(OUT|PROFILES|DATA)`)
	names := map[string]bool{}
	for _, tc := range cases {
		if names[tc.Name] {
			t.Errorf("two hostile cases are named %s", tc.Name)
		}
		names[tc.Name] = true
		if placeholder.MatchString(tc.SQL + tc.Want) {
			t.Errorf("%s keeps a placeholder: %q, want %q", tc.Name, tc.SQL, tc.Want)
		}
	}
	conn := standIn(t)
	for _, d := range []*schema.Dataset{schema.Events, schema.Products} {
		p := ForDataset(d)
		for _, tc := range cases {
			c, err := Check(context.Background(), conn, tc.SQL, p, 10)
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Errorf("%s (%s): Check(%q) = %v, %v; want a *Rejection", tc.Name, d.Name, tc.SQL, c, err)
				continue
			}
			if c != nil {
				t.Errorf("%s: Check returned %v with a rejection", tc.Name, c)
			}
			if !strings.Contains(strings.ToLower(rej.Error()), strings.ToLower(tc.Want)) {
				t.Errorf("%s: the message %q does not mention %q", tc.Name, rej.Error(), tc.Want)
			}
		}
	}
}

// TestLegitCorpusRunsThroughChecked: every legit query is accepted, and the statement Check returns
// gives the rows the query gives when run directly, at most rowCap+1 of them, and one past its own
// LIMIT.
func TestLegitCorpusRunsThroughChecked(t *testing.T) {
	legit := guardtest.Legit()
	if len(legit) < 50 {
		t.Fatalf("legit corpus has %d queries, want at least 50", len(legit))
	}
	conn := standIn(t)
	ctx := context.Background()
	const rowCap = 10
	for _, d := range []*schema.Dataset{schema.Events, schema.Products} {
		p := ForDataset(d)
		for _, q := range legit {
			c, err := Check(ctx, conn, q, p, rowCap)
			if err != nil {
				t.Errorf("Check(%q) for %s: %v", q, d.Name, err)
				continue
			}
			if c.run.text != wrapper(rowCap) || len(c.args) != 1 {
				t.Errorf("Check(%q) = %#v, want the wrapper with one argument", q, c)
				continue
			}
			runsAsQuery(t, conn, q, c, rowCap)
			// One transaction, so now() and friends are the same in both runs.
			if _, err := conn.raw.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
				t.Fatal(err)
			}
			wantCols, want, err := rowsOf(ctx, conn, q)
			if err != nil {
				t.Errorf("running %q directly: %v", q, err)
			}
			gotCols, got, err := rowsOf(ctx, conn, c.run.text, c.args...)
			if err != nil {
				t.Errorf("running %q through Checked: %v", q, err)
			}
			if _, err := conn.raw.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			if len(want) > rowCap+1 {
				t.Errorf("%q returns %d rows; legit queries are kept under the cap so the rows compare", q, len(want))
				continue
			}
			if len(got) > c.Rows() { // the row past the query's own LIMIT
				got = got[:c.Rows()]
			}
			sort.Strings(want)
			sort.Strings(got)
			if !reflect.DeepEqual(gotCols, wantCols) || !reflect.DeepEqual(got, want) {
				t.Errorf("%q through Checked gave\n%v %v\nwant\n%v %v", q, gotCols, got, wantCols, want)
			}
		}
	}
}

// TestSeedQueriesReturnRows checks seed-style queries against the stand-in data, so a guard that
// mangled them (e.g. dropped a WHERE) would show.
func TestSeedQueriesReturnRows(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT event_name FROM 'events.csv' WHERE cost LIKE '%"is_free": true%' ORDER BY 1`, []string{"[Market]", "[秋祭り]"}},
		{`SELECT event_name FROM events WHERE registration_required = 'True'`, []string{"[秋祭り]"}},
		{`SELECT store_name FROM stores WHERE store_name LIKE '%ヒルズ%'`, []string{"[麻布台ヒルズカフェ]"}},
		{`SELECT product_name FROM products WHERE product_description LIKE '%1,000円%'`, []string{"[Latte]"}},
		{`SELECT event_name FROM events WHERE description LIKE '%DELETE%'`, []string{"[秋祭り]"}},
		{`SELECT store_id FROM stores WHERE is_open(store_id, TIMESTAMP '2025-10-03 12:00') ORDER BY 1`, []string{"[S001]", "[S002]", "[S003]"}},
		{`SELECT store_name FROM stores WHERE is_open(store_id, TIMESTAMP '2025-12-31 12:00')`, nil},
		{`WITH events AS (SELECT 'shadow' AS event_name) SELECT * FROM events`, []string{"[shadow]"}},
	} {
		if got := runChecked(t, conn, tc.sql, p, 10); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q returned %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestAllowedShadowingReadsTheCTE runs queries that name a CTE like the hidden table in every place a
// relation can appear: DuckDB must bind each to the CTE, as the guard assumed, never to the table.
func TestAllowedShadowingReadsTheCTE(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	const cte = "WITH secret_profiles AS (SELECT 'cte' AS profile_id) "
	for _, q := range []string{
		cte + "SELECT * FROM secret_profiles",
		cte + `SELECT * FROM "SECRET_PROFILES"`,
		cte + "SELECT (SELECT max(profile_id) FROM secret_profiles)",
		cte + "SELECT * FROM (SELECT 1) t, LATERAL (SELECT profile_id FROM secret_profiles)",
		cte + "SELECT * FROM unnest((SELECT list(profile_id) FROM secret_profiles))",
		cte + "SELECT * FROM json_each((SELECT to_json(list(profile_id)) FROM secret_profiles))",
		cte + "SELECT * FROM (WITH x AS (SELECT * FROM secret_profiles) SELECT * FROM x)",
		cte + "SELECT profile_id FROM secret_profiles UNION ALL SELECT profile_id FROM secret_profiles",
		cte + "SELECT * FROM events WHERE event_name IN (SELECT profile_id FROM secret_profiles) OR true",
		cte + "SELECT upper(profile_id) FROM secret_profiles OFFSET (SELECT count(*) - 1 FROM secret_profiles)",
		"WITH a AS (SELECT 'cte' AS profile_id), secret_profiles AS (SELECT * FROM a) SELECT * FROM secret_profiles",
		"WITH profiles AS (SELECT 'cte' AS narrative) SELECT * FROM profiles",
		"WITH RECURSIVE secret_profiles(profile_id) AS (SELECT 'cte' UNION ALL SELECT profile_id || 'x' FROM secret_profiles WHERE length(profile_id) < 5) SELECT * FROM secret_profiles",
		"WITH RECURSIVE secret_profiles(profile_id) AS (SELECT 'cte' UNION ALL SELECT s.profile_id || 'y' FROM (SELECT * FROM secret_profiles) s WHERE length(s.profile_id) < 5) SELECT * FROM secret_profiles",
	} {
		rows := runChecked(t, conn, q, p, 10)
		if len(rows) == 0 {
			t.Errorf("%q returned no rows; want the CTE's", q)
		}
		for _, r := range rows {
			if strings.Contains(r, guardtest.Secret) {
				t.Errorf("%q read the hidden table: %s", q, r)
			}
		}
	}
}

// TestRowCap: the agent's own LIMIT and OFFSET compose with the cap, and never more than rowCap+1
// rows come back (a LIMIT within the cap gets one row more: limit_test.go).
func TestRowCap(t *testing.T) {
	conn := standIn(t)
	p := policyWith(schema.Events, "fifty")
	for _, tc := range []struct {
		sql  string
		rows int
	}{
		{"SELECT * FROM fifty", 11},
		{"SELECT * FROM fifty LIMIT 5", 6},
		{"SELECT * FROM fifty LIMIT 100", 11},
		{"SELECT * FROM fifty ORDER BY i OFFSET 45", 5},
		{"SELECT * FROM fifty ORDER BY i LIMIT 20 OFFSET 40", 10},
		{"SELECT * FROM fifty OFFSET 1000000000000", 0},
		{"SELECT * FROM fifty LIMIT 1000000000000000000", 11},
		{"SELECT * FROM fifty -- trailing comment", 11},
		{"SELECT * FROM fifty; -- comment after the semicolon", 11},
		{"SELECT * FROM fifty LIMIT 3 -- trailing comment", 4},
		{"SELECT * FROM fifty UNION ALL SELECT * FROM fifty", 11},
		{"SELECT * FROM (SELECT * FROM fifty LIMIT 30) LIMIT 20", 11},
		{"FROM range(1000000)", 11},
	} {
		if got := runChecked(t, conn, tc.sql, p, 10); len(got) != tc.rows {
			t.Errorf("%q returned %d rows, want %d", tc.sql, len(got), tc.rows)
		}
	}
	// The query's own order is kept under the cap.
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT i FROM fifty ORDER BY i DESC", []string{"[49]", "[48]", "[47]", "[46]"}},
		{"SELECT i FROM fifty ORDER BY i OFFSET 45", []string{"[45]", "[46]", "[47]", "[48]"}},
		{"SELECT i FROM fifty ORDER BY i LIMIT 2 OFFSET 10", []string{"[10]", "[11]", "[12]"}},
	} {
		if got := runChecked(t, conn, tc.sql, p, 3); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q with rowCap 3 returned %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestChecked: the statement is the fixed wrapper and its argument the very text that was checked.
func TestChecked(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	for _, tc := range []struct {
		sql    string
		rowCap int
		want   Checked
	}{
		{"SELECT 1", 10, Checked{run: SQL{"SELECT * FROM system.main.query(?) AS ctool_q LIMIT 11"}, args: []any{"SELECT 1"}}},
		{"SELECT event_name FROM events -- note\n;  \n", 3, Checked{run: SQL{"SELECT * FROM system.main.query(?) AS ctool_q LIMIT 4"}, args: []any{"SELECT event_name FROM events -- note\n;  \n"}}},
		{"SELECT event_name FROM events; -- note", 1, Checked{run: SQL{"SELECT * FROM system.main.query(?) AS ctool_q LIMIT 2"}, args: []any{"SELECT event_name FROM events; -- note"}}},
		{"  FROM events  ", 999_999_999, Checked{run: SQL{"SELECT * FROM system.main.query(?) AS ctool_q LIMIT 1000000000"}, args: []any{"  FROM events  "}}},
	} {
		got, err := Check(context.Background(), conn, tc.sql, p, tc.rowCap)
		if err != nil {
			t.Errorf("Check(%q): %v", tc.sql, err)
		} else if run := (Checked{run: got.run, args: got.args}); !reflect.DeepEqual(run, tc.want) {
			t.Errorf("Check(%q, %d) = %#v, want %#v", tc.sql, tc.rowCap, run, tc.want)
		} else if got.Statement() == nil {
			t.Errorf("Check(%q) keeps no statement for the hints", tc.sql)
		}
	}
}

// TestBuiltinQueryIsNotShadowed: a table macro named query in the database does not run in place of
// DuckDB's query().
func TestBuiltinQueryIsNotShadowed(t *testing.T) {
	conn := standIn(t)
	if _, err := conn.raw.ExecContext(context.Background(), "CREATE MACRO query(q) AS TABLE SELECT 'shadow' AS event_name"); err != nil {
		t.Fatal(err)
	}
	got := runChecked(t, conn, "SELECT event_name FROM events ORDER BY 1", ForDataset(schema.Events), 10)
	if want := []string{"[Jazz Night]", "[Market]", "[秋祭り]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Hiding a column is presentation, by name, done on the results: the guard accepts every way of
// naming it, and the policy says which result columns are left out.
func TestHiddenColumnsAreNotTheGuards(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Products)
	for _, q := range []string{
		"SELECT store_id FROM products",
		"SELECT store_id AS sid FROM products",
		"SELECT product_name AS a FROM products UNION ALL SELECT store_id AS sid FROM products",
		"SELECT * FROM (SELECT store_id AS sid FROM products)",
	} {
		if _, err := Check(context.Background(), conn, q, p, 10); err != nil {
			t.Errorf("Check(%q): %v", q, err)
		}
	}
	for name, want := range map[string]bool{"store_id": true, "STORE_ID": true, "store_id_1": true, "store_id_x": false, "sid": false, "store_name": false} {
		if got := p.IsHidden(name); got != want {
			t.Errorf("IsHidden(%q) = %v, want %v", name, got, want)
		}
	}
}

// relationsHint is the list of tables every refusal of a table ends with.
func relationsHint() string {
	names := append([]string(nil), guardtest.StandInRelations...)
	sort.Strings(names)
	return "Tables you may use: " + strings.Join(names, ", ") + "."
}

func TestMessages(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	funcHint := "Use ordinary string, number, date/time, list, struct, map, JSON, regexp, aggregate and window functions, and fold(), is_open(), tokyo_now()."
	for _, tc := range []struct{ sql, want string }{
		{"DELETE FROM events", "refused: DELETE. " + onlySelect},
		{"SELECT 1; SELECT 2", "refused: 2 statements. " + onlySelect + " Send a single SELECT with nothing after its ';'; nothing was run."},
		{"SELECT 1; DROP TABLE events", "refused: a statement that is not a SELECT. " + onlySelect + " The text holds a second statement after a ';', or a WITH followed by something other than SELECT; nothing was run. Send only the SELECT."},
		{"PIVOT events ON cost USING count(*)", "refused: PIVOT without an explicit IN list. DuckDB runs such a PIVOT as several statements. " + onlySelect + " List the values, e.g. PIVOT events ON registration_required IN ('True', 'False') USING count(*)."},
		{" -- nothing\n", "refused: empty query. There is no SQL statement in the text (only whitespace or comments). Send one SELECT, e.g. SELECT * FROM events LIMIT 5."},
		{"SELECT * FROM secret_profiles", `refused: table "secret_profiles". It is not one of the tables ctool query may read, and no CTE of that name is visible there. ` + relationsHint()},
		{"SELECT * FROM ctool_meta.build", `refused: qualified table name "ctool_meta.build". Tables are named without a catalog or schema prefix. Use the bare name, and quote names that contain dots or slashes (FROM 'events.csv'). ` + relationsHint()},
		{"SELECT current_setting('memory_limit')", "refused: function current_setting(). It is not on ctool query's list of allowed functions (functions that read settings, variables, the catalog, files or other databases, or have side effects are blocked). " + funcHint},
		{"SELECT * FROM read_csv('x.csv')", "refused: table function read_csv(). It is not allowed in FROM: files, other databases and metadata cannot be read. " + tableFunctionHint + " " + relationsHint()},
		{"SELECT * FROM main.range(3)", "refused: table function main.range(). Table functions are called without a catalog or schema prefix. " + tableFunctionHint},
		{"SELECT main.lower('x')", "refused: qualified function call main.lower(). Functions are called by their plain name, without a catalog or schema prefix. Write lower(description) rather than description.lower() or main.lower(description)."},
		{"SELECT user", `refused: "user". DuckDB turns this keyword into a call to user(), which reads session information. Leave it out; no table here has a column of that name.`},
		{"SELECT list_aggr([1], lower('SUM'))", "refused: list_aggr() with a computed function name. The aggregate it calls must be named by a string literal. Write e.g. list_aggr(l, 'sum')."},
		{"SELECT * FROM events WHERE event_name = $name", "refused: query parameter. Prepared-statement parameters ($1, ?, $name) have no values here. Write the values into the query as literals, e.g. WHERE store_id = 'S001'."},
		{"SELECT * FROM events AT (VERSION => 1)", `refused: AT (...) time travel on "events". ctool query reads only the current data. Remove the AT (VERSION/TIMESTAMP => ...) clause.`},
		{"PIVOT events ON cost IN my_enum USING count(*)", "refused: PIVOT ... IN my_enum. Pivoting on a named ENUM type reads the catalog. List the values instead: IN ('a', 'b')."},
		{"SELECT CAST('events' AS regclass)", `refused: type "regclass". Casts may use DuckDB's built-in types only, not named types from the catalog. Use e.g. VARCHAR, INTEGER, DOUBLE, DATE, TIMESTAMP, BOOLEAN, JSON, VARCHAR[], STRUCT(...).`},
		{"SELECT count(*) EXPORT_STATE FROM events", `refused: function call field "export_state". ctool query does not recognise this part of the parsed query, so it refuses it. Rewrite it with ordinary SELECT syntax. ` + onlySelect},
		{"DESCRIBE events", "refused: DESCRIBE. Metadata statements (DESCRIBE, SUMMARIZE, SHOW) are not available. " + onlySelect + " To see the columns, run SELECT * FROM <table> LIMIT 3. " + relationsHint()},
		{"SELECT * FROM (SUMMARIZE events)", "refused: SUMMARIZE. Metadata statements (DESCRIBE, SUMMARIZE, SHOW) are not available. " + onlySelect + " To see the columns, run SELECT * FROM <table> LIMIT 3. " + relationsHint()},
		{"SELEC 1", `refused: syntax error. DuckDB could not parse the query: syntax error at or near "SELEC". Fix the SQL and send it again; ` + onlySelect},
		{"SELECT '\xff'", "refused: invalid text. The query is not valid UTF-8. Send the SELECT as plain UTF-8 text."},
		{"SELECT 1\x00", "refused: NUL byte. The query contains a NUL (0x00) character. Remove it and send the SELECT again."},
		{strings.Repeat(" ", 100_001), "refused: query too long. The text has 100001 characters; the limit is 100000. Send a shorter SELECT."},
		// Counted in characters as the tools' maxLength is: 3 bytes each, still one character each.
		{"SELECT '" + strings.Repeat("あ", 100_000-8) + "'", "refused: query too long. The text has 100001 characters; the limit is 100000. Send a shorter SELECT."},
		{strings.Repeat("\U0001F600", 100_001), "refused: query too long. The text has 100001 characters; the limit is 100000. Send a shorter SELECT."},
	} {
		_, err := Check(context.Background(), conn, tc.sql, p, 10)
		var rej *Rejection
		if !errors.As(err, &rej) {
			t.Errorf("Check(%q) = %v, want a *Rejection", tc.sql, err)
			continue
		}
		if got := rej.Error(); got != tc.want {
			t.Errorf("Check(%.40q) message\n got: %s\nwant: %s", tc.sql, got, tc.want)
		}
	}
}

// TestParsesOnce: Check makes exactly one call on the connection, json_serialize_sql, and none for
// text it refuses before parsing.
func TestParsesOnce(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Products)
	for _, tc := range []struct {
		sql   string
		calls int
	}{
		{"SELECT * FROM products", 1},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t", 1},
		{"SELECT 1; SELECT 2", 1},
		{"SELECT * FROM profiles", 1},
		{"SELEC 1", 1},
		{"", 1},
		{"SELECT 1\x00", 0},
		{"SELECT '\xff'", 0},
	} {
		log := startQueryLog(t, conn)
		_, _ = Check(context.Background(), conn, tc.sql, p, 10)
		var want []string
		for range tc.calls {
			want = append(want, testSerializeSQL)
		}
		if got := log.statements(t); !reflect.DeepEqual(got, want) {
			t.Errorf("Check(%q) ran %q, want %q", tc.sql, got, want)
		}
	}
}

// TestDuckDBFailureIsPlainError: a failure that is not a refusal is a plain error, and one caused by
// the context says so.
func TestDuckDBFailureIsPlainError(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, ctx := range []context.Context{cancelled, expired} {
		c, err := Check(ctx, conn, "SELECT 1", p, 10)
		var rej *Rejection
		if c != nil || err == nil || errors.As(err, &rej) || !errors.Is(err, ctx.Err()) {
			t.Errorf("Check with a done context (%v) = %v, %v; want a plain error wrapping it", ctx.Err(), c, err)
		}
	}
	for _, rowCap := range []int{0, -1, maxRowCap + 1} {
		if _, err := Check(context.Background(), conn, "SELECT 1", p, rowCap); err == nil || errors.As(err, new(*Rejection)) {
			t.Errorf("Check with rowCap %d = %v, want a plain error", rowCap, err)
		}
	}
	if _, err := Check(context.Background(), nil, "SELECT 1", p, 10); err == nil || errors.As(err, new(*Rejection)) {
		t.Errorf("Check without a connection = %v, want a plain error", err)
	}
}

// TestFunctionListsCoverDuckDB fails when DuckDB has a function that nobody reviewed, and when the
// allow-list names one DuckDB does not have.
func TestFunctionListsCoverDuckDB(t *testing.T) {
	conn := standIn(t)
	rows, err := conn.raw.QueryContext(context.Background(),
		`SELECT DISTINCT function_name, function_type, schema_name FROM duckdb_functions() WHERE schema_name IN ('main', 'pg_catalog') AND database_name = 'system'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	exists := map[string]bool{}
	for rows.Next() {
		var name, typ, schemaName string
		if err := rows.Scan(&name, &typ, &schemaName); err != nil {
			t.Fatal(err)
		}
		l := asciiLower(name)
		if schemaName == "main" && (typ == "scalar" || typ == "aggregate" || typ == "macro") {
			exists[l] = true
		}
		denied := reviewedDeniedFunctions[l]
		for _, pre := range deniedFunctionPrefixes {
			denied = denied || strings.HasPrefix(l, pre)
		}
		if !allowedFunctions[l] && !denied {
			t.Errorf("DuckDB function %s (%s, %s) is on neither list: review it and add it to allowedFunctions or reviewedDeniedFunctions", name, typ, schemaName)
		}
		if allowedFunctions[l] && denied {
			t.Errorf("function %s is both allowed and denied", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range allowedFunctions {
		if !exists[name] && name != "unnest" && name != "unlist" {
			t.Errorf("allowed function %s is not a scalar, aggregate or macro of DuckDB", name)
		}
	}
	for name := range parserQualifiedFunctions {
		if !allowedFunctions[name] {
			t.Errorf("parser-qualified function %s is not allowed", name)
		}
	}
}

// TestAllowedFunctionsPass calls every allowed named function once: the guard must not refuse any.
func TestAllowedFunctionsPass(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	identifier := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	for name := range allowedFunctions {
		if !identifier.MatchString(name) {
			continue // operators such as ~~ are reached through their syntax
		}
		// nullif and position have grammar of their own: try the argument forms until one parses.
		var q string
		var err error
		for _, args := range []string{"(1)", "(1, 2)", "('a' IN 'b')"} {
			q = "SELECT " + name + args
			if _, err = Check(context.Background(), conn, q, p, 10); err == nil || !strings.Contains(err.Error(), "syntax error") {
				break
			}
		}
		if err != nil {
			t.Errorf("Check(%q): %v", q, err)
		}
	}
}

func TestDeniedFunctionsAreRefused(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	for name := range reviewedDeniedFunctions {
		if p.Macros[name] {
			continue
		}
		q := `SELECT "` + name + `"(1)`
		_, err := Check(context.Background(), conn, q, p, 10)
		var rej *Rejection
		if !errors.As(err, &rej) || !strings.Contains(rej.Error(), name+"()") {
			t.Errorf("Check(%q) = %v, want a refusal naming %s()", q, err, name)
		}
	}
}

func TestFirstKeyword(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"DELETE FROM x", "DELETE"},
		{"  -- c\n/* a /* b */ c */ ((drop", "DROP"},
		{"-- only", ""},
		{"/* unterminated", ""},
		{"with a as (select 1) delete", "WITH"},
		{"(((  select", "SELECT"},
	} {
		if got := firstKeyword(tc.in); got != tc.want {
			t.Errorf("firstKeyword(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestQuoteNonFinite: DuckDB writes overflowing DOUBLE constants as bare Infinity, which is not JSON;
// the guard reads them as strings and leaves strings that merely contain the words alone.
func TestQuoteNonFinite(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"value":Infinity}`, `{"value":"Infinity"}`},
		{`[-Infinity,NaN,1]`, `["-Infinity","NaN",1]`},
		{`{"s":"Infinity \"NaN\" -Infinity"}`, `{"s":"Infinity \"NaN\" -Infinity"}`},
		{`{"s":"a\\","v":NaN}`, `{"s":"a\\","v":"NaN"}`},
	}
	for _, tt := range tests {
		if got := string(quoteNonFinite(tt.in)); got != tt.want {
			t.Errorf("quoteNonFinite(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A query of exactly schema.MaxQueryChars characters is accepted however many bytes they take, as the
// tools' input schema (maxLength) accepts it.
func TestCheckLengthInCharacters(t *testing.T) {
	conn := standIn(t)
	p := ForDataset(schema.Events)
	for _, fill := range []string{"x", "あ", "\U0001F600"} {
		sqlText := "SELECT '" + strings.Repeat(fill, schema.MaxQueryChars-9) + "'"
		if _, err := Check(context.Background(), conn, sqlText, p, 10); err != nil {
			t.Errorf("Check(%d characters of %q, %d bytes) = %v, want accepted", schema.MaxQueryChars, fill, len(sqlText), err)
		}
	}
}
