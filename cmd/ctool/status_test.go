package main

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

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
