package database_test

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/ingest/ingesttest"
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
