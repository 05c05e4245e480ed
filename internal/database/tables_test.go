package database_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
)

// A file with its build record but without one of the public tables is not a ctool database.
func TestOpenRefusesAFileWithoutAPublicTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change string // run on a build before it is opened
		ok     bool
	}{
		{"intact", "", true},
		{"no products table", "DROP TABLE products", false},
		{"no stores table", "DROP TABLE stores", false},
		{"events renamed", "ALTER TABLE events RENAME TO events_old", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ingesttest.Build(t, ingesttest.SampleInput(t))
			if tc.change != "" {
				db, err := sql.Open("duckdb", path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(tc.change); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			b, err := database.Open(context.Background(), path)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				b.Close()
				return
			}
			var ce *fault.Error
			if !errors.As(err, &ce) || ce.Kind != fault.KindNoDatabase || !errors.Is(err, database.ErrNoDatabase) ||
				!strings.HasSuffix(ce.Message, path+" is not a ctool database") {
				t.Errorf("got %v, want a no_database error that says it is not a ctool database", err)
			}
		})
	}
}
