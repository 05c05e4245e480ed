package hint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// What reaches DuckDB when an agent's query finds nothing and the hints read the build, seen in
// DuckDB's own log of the statements it ran: every statement text is ctool's own, or the guard's
// statement that runs a query it checked. An agent's text, and DuckDB's rewriting of it, reaches the
// engine only as a bound argument, which the log does not show: so a statement text that holds the
// marker of the agent's alias is a statement that was not checked.

// marker is in every hostile alias and in no text of ctool's.
const marker = "zq7"

// hostileAliases are relation names that DuckDB writes back unquoted, or that break a text they are
// spliced into: quotes, a star, ';', comments and line breaks.
var hostileAliases = []string{
	`x.* FROM stores AS x) AS t GROUP BY ALL; ATTACH ':memory:' AS pwn; SELECT true, false, 42 UNION ALL SELECT false, true, 43 --`,
	`x.* FROM stores AS x) AS t GROUP BY ALL; CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name; SELECT true, false, 1 --`,
	`x.* FROM stores AS x) AS t GROUP BY ALL; CALL enable_logging('QueryLog'); SELECT true, false, 1 --`,
	`x.* FROM stores AS x) AS t GROUP BY ALL UNION ALL SELECT true, false, 42 --`,
	`s'x`, `a"b`, `*`, `;`, "--", "/*", "a\nb; SET VARIABLE v = 1", `") t; DROP VIEW stores; --`,
}

// emptyWithAlias is a query that finds nothing, with two AND parts (so the conflict hint counts them)
// over a subquery whose star is qualified by alias.
func emptyWithAlias(alias string) string {
	quoted := `"` + strings.ReplaceAll(marker+alias, `"`, `""`) + `"`
	return "SELECT 1 AS one FROM (SELECT " + quoted + ".* FROM stores AS " + quoted + ") t WHERE length(store_name) > 0 AND store_name IS NULL"
}

// notedWithAlias is a query over store_hours (so the note writes a statement from it) whose stores
// relation has the alias, with a star of the alias in the part the note keeps.
func notedWithAlias(alias string) string {
	quoted := `"` + strings.ReplaceAll(marker+alias, `"`, `""`) + `"`
	return "SELECT 1 AS one FROM stores AS " + quoted + " WHERE " + quoted + ".store_id IN (SELECT x.store_id FROM (SELECT " + quoted + ".* FROM stores AS " + quoted +
		") AS x) AND is_open(" + quoted + ".store_id, TIMESTAMP '2025-10-03 19:30')"
}

// statementsOf runs q on a fresh engine of path with the statement log on and returns what DuckDB ran
// for it, and the engine's answer.
func statementsOf(t testing.TB, path string, q string) ([]string, *query.Result, error) {
	ctx := context.Background()
	live := database.NewLive(path, database.WithStatementLog())
	defer live.Close()
	res, qerr := query.NewEngine(live).Query(ctx, schema.Stores, q)
	b, release, err := live.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	log, err := b.StatementLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return log, res, qerr
}

// unchecked lists the statements of log that carry the agent's text: the shape's own run statement
// is the one the guard proved (guard.CheckShape) and may.
func unchecked(q string, log []string) []string {
	var out []string
	shaped, hasShape := guard.Shape(q)
	for _, s := range log {
		if !strings.Contains(s, marker) {
			continue
		}
		if hasShape && s == "SELECT * FROM (\n"+shaped.Text+"\n) AS ctool_q LIMIT 11" {
			continue
		}
		out = append(out, s)
	}
	return out
}

func TestHintsRunOnlyCheckedStatements(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	for _, alias := range hostileAliases {
		for _, q := range []string{emptyWithAlias(alias), notedWithAlias(alias)} {
			log, res, err := statementsOf(t, path, q)
			if err != nil {
				t.Errorf("%q: %v", alias, err)
				continue
			}
			if len(log) == 0 {
				t.Fatal("the statement log is empty: the test sees nothing")
			}
			if bad := unchecked(q, log); len(bad) > 0 {
				t.Errorf("%q: statements that were not checked reached DuckDB:\n%s", alias, strings.Join(bad, "\n"))
			}
			if strings.Contains(res.Hint, "42 rows") || strings.Contains(res.Hint, "planted") || strings.Contains(res.Note, "planted") {
				t.Errorf("%q: the answer carries the attacker's numbers: %s %s", alias, res.Hint, res.Note)
			}
		}
	}
}

// The plain form of the same query keeps its hint: the conditions' counts come from checked statements.
func TestConflictHintStillCounts(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	live := database.NewLive(path)
	defer live.Close()
	res, err := query.NewEngine(live).Query(context.Background(), schema.Stores,
		"SELECT store_name FROM stores WHERE category = 'cafe' AND store_name LIKE '%鮨%'")
	if err != nil {
		t.Fatal(err)
	}
	want := "no row matches these conditions together, though each matches rows alone: category = 'cafe' matches 3 rows, store_name LIKE '%鮨%' matches 1 row"
	if res.Hint != want {
		t.Errorf("hint\n got: %s\nwant: %s", res.Hint, want)
	}
}

// FuzzHintAliases feeds the hints' and the note's paths adversarial aliases and holds them to the
// same rule.
func FuzzHintAliases(f *testing.F) {
	for _, a := range hostileAliases {
		f.Add(a)
	}
	path := ingesttest.Build(f, ingesttest.SampleInput(f))
	f.Fuzz(func(t *testing.T, alias string) {
		for _, q := range []string{emptyWithAlias(alias), notedWithAlias(alias)} {
			log, _, _ := statementsOf(t, path, q)
			if bad := unchecked(q, log); len(bad) > 0 {
				t.Fatalf("alias %q: statements that were not checked reached DuckDB:\n%s", alias, strings.Join(bad, "\n"))
			}
		}
	})
}
