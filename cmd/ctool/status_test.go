package main

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/migrations"
)

// A build records the schema version of the ctool that made it; status compares it with its own, so a
// build made by an older ctool reads as older, and --check fails on it though every source is fresh.
func TestStatusOlderSchema(t *testing.T) {
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	latest := migrations.Version(migrations.Main)
	for _, c := range []struct {
		recorded int
		line     string
		code     int
	}{
		{latest, fmt.Sprintf("schema:    %d (latest %d)", latest, latest), 0},
		{latest - 1, fmt.Sprintf("schema:    %d (latest %d: built by an older ctool; ctool ingest rebuilds it)", latest-1, latest), 1},
		{latest + 1, fmt.Sprintf("schema:    %d (latest %d: built by a newer ctool)", latest+1, latest), 1},
	} {
		db, err := sql.Open("duckdb", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE ctool_meta.build SET value = ? WHERE key = 'schema_version'`, fmt.Sprint(c.recorded)); err != nil {
			t.Fatal(err)
		}
		db.Close()
		r := runCtool("", "status", "--db", path, "--input", input, "--check")
		if r.code != c.code || !strings.Contains(r.stdout, "\n"+c.line+"\n") {
			t.Errorf("schema %d recorded: exit %d, stdout\n%s\nwant exit %d and the line %q", c.recorded, r.code, r.stdout, c.code, c.line)
		}
	}
}

// The text status gives the build time on Tokyo's clock with its age; what is not a stored timestamp
// is shown as it is, made visible.
func TestBuiltAt(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 30, 0, 0, time.UTC)
	for _, c := range []struct{ stored, want string }{
		{"2026-11-26T00:29:30Z", "2026-11-26 09:29 JST (just now)"},
		{"2026-11-26T00:29:00Z", "2026-11-26 09:29 JST (1 minute ago)"},
		{"2026-11-25T23:45:00Z", "2026-11-26 08:45 JST (45 minutes ago)"},
		{"2026-11-25T20:35:00Z", "2026-11-26 05:35 JST (3 hours ago)"},
		{"2026-11-24T01:00:00Z", "2026-11-24 10:00 JST (47 hours ago)"},
		{"2026-11-20T00:30:00Z", "2026-11-20 09:30 JST (6 days ago)"},
		{"2026-11-26T01:00:00Z", "2026-11-26 10:00 JST (in the future: check this machine's clock)"},
		{"2026-11-26T09:00:00+09:00", "2026-11-26 09:00 JST (30 minutes ago)"},
		{"", ""},
		{"yesterday\x1b[2J", `yesterday\x1b[2J`},
	} {
		if got := builtAt(c.stored, now); got != c.want {
			t.Errorf("builtAt(%q) = %q, want %q", c.stored, got, c.want)
		}
	}
}
