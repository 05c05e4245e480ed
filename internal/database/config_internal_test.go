package database

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestSmallBuildSettingsBySize: late materialization and the optimizers beyond keptOptimizers are
// off below smallBuild, DuckDB's defaults at and above it.
func TestSmallBuildSettingsBySize(t *testing.T) {
	for _, tc := range []struct {
		size  int64
		small bool
	}{{0, true}, {smallBuild - 1, true}, {smallBuild, false}, {1 << 30, false}} {
		dsn := options{}.dsn(tc.size)
		if got := strings.Contains(dsn, "late_materialization_max_rows=0"); got != tc.small {
			t.Errorf("dsn(%d) turns late materialization off: %v, want %v", tc.size, got, tc.small)
		}
		if got := strings.Contains(dsn, "disabled_optimizers="); got != tc.small {
			t.Errorf("dsn(%d) disables optimizers: %v, want %v", tc.size, got, tc.small)
		}
	}
}

// TestOptimizerListsAreDuckDBs: the kept and the disabled optimizers are DuckDB's, each once, and
// together all of them: a DuckDB that adds an optimizer makes this fail until it is placed in one.
func TestOptimizerListsAreDuckDBs(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM duckdb_optimizers() ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var duckdb []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		duckdb = append(duckdb, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ours := slices.Concat(keptOptimizers, smallBuildDisabledOptimizers)
	slices.Sort(ours)
	if !slices.Equal(ours, duckdb) {
		t.Errorf("kept and disabled optimizers:\n%v\nDuckDB's:\n%v", ours, duckdb)
	}
}
