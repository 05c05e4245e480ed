package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/ingesttest"
)

// Databases side by side whose names share a prefix, or one named like another's profiles file, never
// remove each other's files: after every build, each of them still finds its profiles.
func TestBuildFilesOfNeighbours(t *testing.T) {
	input := ingesttest.SampleInput(t)
	dir := t.TempDir()
	dbs := []string{"ctool", "ctool.duckdb", "ctool.profiles-0123456789ab.duckdb", "ctool.duckdb.profiles-0123456789ab"}
	for round := 0; round < 3; round++ {
		for _, name := range dbs {
			ingesttest.Rebuild(t, input, filepath.Join(dir, name))
			for _, other := range dbs {
				if _, err := os.Stat(filepath.Join(dir, other)); err != nil {
					continue // not built yet
				}
				checkProfiles(t, filepath.Join(dir, other))
			}
		}
	}
	// Each keeps at most its current and previous profiles files: the rest were its own and removed.
	entries, _ := os.ReadDir(dir)
	if len(entries) > 3*len(dbs) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%d files left:\n%s", len(entries), strings.Join(names, "\n"))
	}
}

func checkProfiles(t *testing.T, path string) {
	t.Helper()
	b, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer b.Close()
	if _, err := b.Profiles(context.Background()); err != nil {
		t.Fatalf("%s: profiles: %v", path, err)
	}
}

// A --db that is a symbolic link is refused, and neither the link nor its target changes.
func TestIngestRefusesSymlinkedDB(t *testing.T) {
	input := ingesttest.SampleInput(t)
	target := ingesttest.Build(t, input)
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.duckdb")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, sum, err := ingest.Ingest(context.Background(), input, link, ingest.Options{})
	if ce := ctool.As(err); sum != nil || ce == nil || ce.Kind != ctool.KindUsage || !strings.Contains(ce.Message, "symbolic link") {
		t.Fatalf("sum %v, err %v: want a usage error about the link", sum, err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
	if after, _ := os.ReadFile(target); string(after) != string(before) {
		t.Error("the link's target changed")
	}
}
