package database_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
)

// The settings given when the instance is created hold on every connection, as the SET statements
// that gave them before did.
func TestOpenSettings(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(context.Background(), path, database.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := map[string]string{
		"temp_directory":               "",
		"memory_limit":                 "953.6 MiB", // 1GB, as DuckDB shows it
		"threads":                      "1",
		"autoinstall_known_extensions": "false",
		"autoload_known_extensions":    "false",
		"TimeZone":                     "Asia/Tokyo",
		"enable_external_access":       "false",
		"lock_configuration":           "true",
		// The sample build is small: late materialization costs it more than it saves.
		"late_materialization_max_rows": "0",
	}
	got := map[string]string{}
	for name := range want {
		var v string
		if err := b.DB().QueryRow("SELECT current_setting('" + name + "')::VARCHAR").Scan(&v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = v
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %q, want %q", name, got[name], w)
		}
	}
}

// On a small build a query is planned with filter pushdown, join ordering and top-N only: an
// equi-join written in WHERE is still a hash join, and ORDER BY ... LIMIT still a top-N.
func TestSmallBuildPlans(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(context.Background(), path, database.WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var disabled string
	if err := b.DB().QueryRow("SELECT current_setting('disabled_optimizers')::VARCHAR").Scan(&disabled); err != nil {
		t.Fatal(err)
	}
	if off := strings.Split(disabled, ","); !slices.Contains(off, "statistics_propagation") || slices.Contains(off, "filter_pushdown") {
		t.Errorf("disabled_optimizers = %q", disabled)
	}
	for _, tc := range []struct{ query, want, not string }{
		{"SELECT p.product_name FROM products p, stores s WHERE p.store_id = s.store_id", `"LOGICAL_COMPARISON_JOIN"`, `"LOGICAL_CROSS_PRODUCT"`},
		{"SELECT event_name FROM events_typed ORDER BY start_date LIMIT 3", `"LOGICAL_TOP_N"`, `"LOGICAL_ORDER_BY"`},
	} {
		// The optimized plan, read with a SELECT: a reader's connection runs nothing else (not EXPLAIN).
		var plan string
		if err := b.DB().QueryRow("SELECT CAST(json_serialize_plan('" + strings.ReplaceAll(tc.query, "'", "''") + "', optimize := true) AS VARCHAR)").Scan(&plan); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if !strings.Contains(plan, tc.want) || (tc.not != "" && strings.Contains(plan, tc.not)) {
			t.Errorf("%s: plan has no %s, or has %s:\n%.2000s", tc.query, tc.want, tc.not, plan)
		}
	}
}
