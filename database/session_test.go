package database_test

import (
	"context"
	"errors"
	"testing"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/ingest/ingesttest"
)

// What a statement that got past the guard could leave behind, planted on a call's own connection.
// None of it may reach the next call: the session's things go with the connection, the instance's
// make the build be opened afresh.
func TestNothingSurvivesACall(t *testing.T) {
	ctx := context.Background()
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	// A session no call has touched, and random() as setseed(0.5) starts it: what a planted seed gives.
	var fresh string
	var seeded float64
	{
		b, err := database.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := b.TakeRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.ExecContext(ctx, "SELECT setseed(0.5)"); err != nil {
			t.Fatal(err)
		}
		fresh, seeded = sessionOf(t, guard.NewConn(raw, nil))
		b.Close()
	}
	for _, tc := range []struct {
		name     string
		plant    []string
		poisoned bool
	}{
		{"temporary view", []string{"CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name"}, false},
		{"temporary table", []string{"CREATE TEMP TABLE stores AS SELECT 'planted' AS store_name"}, false},
		{"temporary macro", []string{"CREATE TEMP MACRO lower(x) AS 'planted'"}, false},
		{"variable", []string{"SET VARIABLE planted = 'planted'"}, false},
		{"search path", []string{"SET search_path = 'system.main'"}, false},
		{"prepared statement", []string{"PREPARE planted AS SELECT 'planted'"}, false},
		{"random seed", []string{"SELECT setseed(0.5)"}, false},
		{"attached database", []string{"ATTACH ':memory:' AS planted", "CREATE TABLE planted.stores AS SELECT 'planted' AS store_name"}, true},
		{"logging", []string{"CALL enable_logging('QueryLog')"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := database.NewLive(path, database.WithPrewarm())
			defer live.Close()
			b, release, err := live.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := b.TakeRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.plant {
				if _, err := raw.ExecContext(ctx, s); err != nil {
					t.Fatalf("planting %q: %v", s, err)
				}
			}
			b.ReleaseRaw(raw, true)
			release()

			next, releaseNext, err := live.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseNext()
			if reopened := next != b; reopened != tc.poisoned {
				t.Errorf("the build was opened afresh: %v, want %v", reopened, tc.poisoned)
			}
			if err := b.Poisoned(ctx); tc.poisoned != errors.Is(err, database.ErrPoisoned) {
				t.Errorf("the old build's poisoning: %v", err)
			}
			conn, err := next.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var names, temps, vars, found int
			if err := conn.QueryRow(ctx, guard.Const(`SELECT
				(SELECT count(*) FROM stores WHERE lower(store_name) = 'planted'),
				(SELECT count(*) FROM duckdb_tables() WHERE temporary) + (SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal),
				(SELECT count(*) FROM duckdb_variables()),
				(SELECT count(*) FROM duckdb_databases() WHERE database_name = 'planted')`)).Scan(&names, &temps, &vars, &found); err != nil {
				t.Fatal(err)
			}
			if names+temps+vars+found != 0 {
				t.Errorf("the next call sees the planted state: %d planted rows, %d temporary relations, %d variables, %d planted databases", names, temps, vars, found)
			}
			if got, r := sessionOf(t, conn); got != fresh || r == seeded {
				t.Errorf("the next call's session is %s, random() %v; a fresh one's %s, and %v follows the planted seed", got, r, fresh, seeded)
			}
		})
	}
}

// sessionOf describes what a session may hold that a query could read: the search path, the current
// catalog and schema, logging; and its first random number.
func sessionOf(t *testing.T, conn *guard.Conn) (string, float64) {
	t.Helper()
	var s string
	var r float64
	if err := conn.QueryRow(context.Background(), guard.Const(`SELECT concat_ws(' | ', current_setting('search_path'),
		current_database(), current_schema(), current_setting('enable_logging')), random()`)).Scan(&s, &r); err != nil {
		t.Fatal(err)
	}
	return s, r
}
