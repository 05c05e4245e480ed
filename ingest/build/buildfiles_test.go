package build_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
)

// Databases side by side whose names share a prefix (data/ctool), or one named like another's profiles
// file, never remove each other's files: after three builds of data/ctool.duckdb, which remove its own
// oldest profiles file, each of them still finds its profiles, and only its own old file is gone.
func TestBuildFilesOfNeighbours(t *testing.T) {
	input := ingesttest.SampleInput(t)
	dir := t.TempDir()
	neighbours := []string{"ctool", "ctool.profiles-0123456789ab.duckdb"}
	for _, name := range neighbours {
		ingesttest.Rebuild(t, input, filepath.Join(dir, name))
	}
	before, _ := filepath.Glob(filepath.Join(dir, "*"))
	for range 3 {
		ingesttest.Rebuild(t, input, filepath.Join(dir, "ctool.duckdb"))
	}
	for _, name := range append(neighbours, "ctool.duckdb") {
		checkProfiles(t, filepath.Join(dir, name))
	}
	for _, f := range before {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a neighbour's file is gone: %v", err)
		}
	}
	if own, _ := filepath.Glob(filepath.Join(dir, "ctool.profiles-*.duckdb")); len(own) != 4 { // current, previous, the look-alike neighbour and its own profiles file
		t.Errorf("profiles files of ctool.duckdb (and its look-alike neighbour): %v", own)
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
	sum, err := build.Run(context.Background(), input, link, build.Options{})
	if ce := fault.Explain(err); sum != nil || ce == nil || ce.Kind != fault.KindUsage || !strings.Contains(ce.Message, "symbolic link") {
		t.Fatalf("sum %v, err %v: want a usage error about the link", sum, err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
	if after, _ := os.ReadFile(target); string(after) != string(before) {
		t.Error("the link's target changed")
	}
}
