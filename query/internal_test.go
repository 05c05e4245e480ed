package query_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// TestInternalRelationsRefused reads every table and view a build holds besides the public relations
// (the build record, the views the stored typed relations are computed from) and checks that no way
// of naming one gets past the guard.
func TestInternalRelationsRefused(t *testing.T) {
	ctx := context.Background()
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	build, err := database.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := build.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, guard.Const(`SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database()
		UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
		ORDER BY ALL`))
	if err != nil {
		t.Fatal(err)
	}
	type relation struct{ schema, name string }
	var internal []relation
	for rows.Next() {
		var r relation
		if err := rows.Scan(&r.schema, &r.name); err != nil {
			t.Fatal(err)
		}
		if _, public := schema.RelationNamed(r.name); !public || r.schema != "main" {
			internal = append(internal, r)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	build.Close()
	if len(internal) < 5 {
		t.Fatalf("only %d internal relations found: %v", len(internal), internal)
	}

	live := database.NewLive(path)
	defer live.Close()
	e := query.NewEngine(live)
	for _, r := range internal {
		names := []string{fmt.Sprintf("%q.%q", r.schema, r.name), fmt.Sprintf("ctool_build.%q.%q", r.schema, r.name), r.schema + "." + r.name}
		if _, public := schema.RelationNamed(r.name); !public {
			names = append(names, fmt.Sprintf("%q", r.name), r.name)
		}
		for _, name := range names {
			q := "SELECT * FROM " + name
			if _, err := e.Query(ctx, schema.Products, q); kindOf(err) != fault.KindRefused {
				t.Errorf("%s: got %v, want a refusal", q, err)
			}
		}
	}
}
