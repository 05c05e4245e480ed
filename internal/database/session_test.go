package database_test

import (
	"context"
	"errors"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
)

// What a statement that got past the guard could try on a reader's connection, sent straight to it.
// DuckDB refuses each one there (selectOnly), before any of it runs.
func TestReaderConnectionsRunOnlySelects(t *testing.T) {
	ctx := context.Background()
	b, err := database.Open(ctx, ingesttest.Build(t, ingesttest.SampleInput(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	raw, err := b.TakeRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.ReleaseRaw(raw)
	for _, s := range []string{
		"CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name",
		"CREATE TEMP TABLE stores AS SELECT 'planted' AS store_name",
		"CREATE TEMP MACRO lower(x) AS 'planted'",
		"SET VARIABLE planted = 'planted'",
		"SET search_path = 'system.main'",
		"USE ctool_build",
		"PREPARE planted AS SELECT 'planted'",
		"ATTACH ':memory:' AS planted",
		"CALL enable_logging('QueryLog')",
		"SET threads = 1",
		"CHECKPOINT",
		// Several statements: duckdb-go would run all but the last while preparing the text.
		"SELECT 1; CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name",
		"CREATE TEMP VIEW stores AS SELECT 'planted' AS store_name; SELECT 1",
	} {
		rows, err := raw.QueryContext(ctx, s)
		if err == nil {
			rows.Close()
		}
		if !errors.Is(err, database.ErrNotSelect) {
			t.Errorf("%q: %v, want a refusal", s, err)
		}
		if _, err := raw.ExecContext(ctx, s); !errors.Is(err, database.ErrNotSelect) {
			t.Errorf("%q as Exec: %v, want a refusal", s, err)
		}
	}
	var planted, temps, vars, dbs int
	if err := raw.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM stores WHERE store_name = 'planted'),
		(SELECT count(*) FROM duckdb_tables() WHERE temporary) + (SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal),
		(SELECT count(*) FROM duckdb_variables()),
		(SELECT count(*) FROM duckdb_databases() WHERE database_name IN ('planted', 'memory'))`).Scan(&planted, &temps, &vars, &dbs); err != nil {
		t.Fatal(err)
	}
	if planted+temps+vars+dbs != 0 {
		t.Errorf("left behind: %d planted rows, %d temporary relations, %d variables, %d writable or planted databases", planted, temps, vars, dbs)
	}
}
