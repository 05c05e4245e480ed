package changes_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
)

// A database that is missing, or lacks the record of its sources, is no_database (exit 3), never a
// plain error.
func TestReadStatusNoDatabase(t *testing.T) {
	input := ingesttest.SampleInput(t)
	noSources := ingesttest.Build(t, input)
	db, err := sql.Open("duckdb", noSources)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DROP TABLE ctool_meta.sources"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for name, c := range map[string]struct {
		path  string
		cause error
	}{
		"missing":    {filepath.Join(t.TempDir(), "none.duckdb"), fs.ErrNotExist},
		"no sources": {noSources, nil},
	} {
		_, err := changes.ReadStatus(context.Background(), c.path, input)
		var ce *fault.Error
		if !errors.As(err, &ce) || ce.Kind != fault.KindNoDatabase || ce.Kind.Status() != 3 || !errors.Is(err, database.ErrNoDatabase) {
			t.Errorf("%s: %v, want a no_database error", name, err)
		}
		if c.cause != nil && !errors.Is(err, c.cause) {
			t.Errorf("%s: %v does not keep its cause %v", name, err, c.cause)
		}
	}
}
