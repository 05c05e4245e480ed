package query_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// openBuildFiles lists the files under dir this process holds open, by /proc/self/fd: a replaced
// build's file shows there as "(deleted)" for as long as its DuckDB instance lives.
func openBuildFiles(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir) {
			open = append(open, target)
		}
	}
	return open
}

// A process that serves many ingests keeps only the current build open: the statements prepared on
// an old build's connections (the guard's and the row-capped one) must not keep its instance alive.
func TestReplacedBuildsAreReleased(t *testing.T) {
	ctx := context.Background()
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	defer live.Close()
	e := query.NewEngine(live)
	run := func() {
		t.Helper()
		for _, sql := range []string{
			"SELECT store_name FROM stores WHERE store_id = 'STR-0001'",
			"SELECT count(*) FROM stores",
		} {
			if _, err := e.Query(ctx, schema.Stores, sql); err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	const ingests = 4
	for range ingests {
		ingesttest.Rebuild(t, input, path)
		run()
	}
	dir := filepath.Dir(path)
	var deleted []string
	for _, f := range openBuildFiles(t, dir) {
		if strings.HasSuffix(f, "(deleted)") {
			deleted = append(deleted, f)
		}
	}
	if len(deleted) > 0 {
		t.Errorf("%d ingests later the process still holds %d replaced build files open: %v", ingests, len(deleted), deleted)
	}
}
