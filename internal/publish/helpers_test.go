package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/publish/s3test"
)

// testStore is a real store with a way to reach its bytes behind its back and to take it down.
type testStore struct {
	Store
	objectPath func(key string) string // the file that holds key in the backend
	down, up   func()
}

// backend starts a kind of store once per test and makes isolated stores in it.
type backend struct {
	name  string
	start func(t *testing.T) func(name string) *testStore
}

var backends = []backend{
	{"file", func(t *testing.T) func(string) *testStore {
		root := t.TempDir()
		return func(name string) *testStore {
			dir := filepath.Join(root, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			st := mustOpen(t, "file://"+dir)
			// A store whose directory is gone is what an NFS mount that went away looks like.
			return &testStore{Store: st,
				objectPath: func(key string) string { return filepath.Join(dir, filepath.FromSlash(key)) },
				down:       func() { mustRename(t, dir, dir+".away") },
				up:         func() { mustRename(t, dir+".away", dir) },
			}
		}
	}},
	{"s3", func(t *testing.T) func(string) *testStore {
		srv := s3test.Start(t)
		return func(name string) *testStore {
			return &testStore{Store: mustOpen(t, srv.URL(name)),
				objectPath: func(key string) string { return srv.ObjectPath(name, key) },
				down:       srv.Stop, up: srv.Restart,
			}
		}
	}},
}

func mustOpen(t *testing.T, url string) Store {
	t.Helper()
	st, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// writeBuild writes size random bytes as a stand-in build file and returns its path and hash.
func writeBuild(t *testing.T, size int) (string, string) {
	t.Helper()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	path := filepath.Join(t.TempDir(), "ctool.duckdb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return path, hex.EncodeToString(sum[:])
}

func testManifest(id string) Manifest {
	return Manifest{
		BuildID: id, SchemaVersion: 1, RowCounts: map[string]int64{"stores": 12, "events": 3},
		Place: "渋谷", CreatedAt: time.Now().UTC(), CtoolVersion: "test",
	}
}

// publishNew writes and publishes a build of size bytes.
func publishNew(t *testing.T, st Store, id string, size int) (Manifest, string) {
	t.Helper()
	path, _ := writeBuild(t, size)
	m, err := Publish(context.Background(), st, path, testManifest(id))
	if err != nil {
		t.Fatalf("publish %s: %v", id, err)
	}
	return m, path
}

// readPointer reads latest as a reader would.
func readPointer(t *testing.T, st Store) Pointer {
	t.Helper()
	data, _, err := st.ReadVersioned(context.Background(), LatestKey, maxPointerBytes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePointer(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// refusePartials is a verify that fails the test if it is ever handed a file still being written.
func refusePartials(t *testing.T) func(string, Manifest) error {
	return func(path string, m Manifest) error {
		if strings.HasPrefix(filepath.Base(path), partialPrefix) {
			t.Errorf("verify was handed a partial file %s", path)
		}
		if m.SchemaVersion != 1 {
			return &schemaError{m.SchemaVersion}
		}
		return nil
	}
}

type schemaError struct{ v int }

func (e *schemaError) Error() string { return "schema version too new" }

// newFollower makes a follower that records its swaps; it is closed with the test.
func newFollower(t *testing.T, st Store, cacheDir string, swaps *[]Manifest) *Follower {
	t.Helper()
	f, err := NewFollower(FollowerConfig{Store: st, CacheDir: cacheDir, Interval: time.Second,
		Verify: refusePartials(t),
		Swap: func(path string, m Manifest) error {
			*swaps = append(*swaps, m)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// cacheNames lists the cache directory, without its lock file.
func cacheNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != ".lock" {
			names = append(names, e.Name())
		}
	}
	return names
}

// wantCache checks that the cache holds exactly these builds (with manifests) and nothing else.
func wantCache(t *testing.T, dir string, shas ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, sha := range shas {
		want[sha+".duckdb"], want[sha+".json"] = true, true
	}
	got := cacheNames(t, dir)
	for _, name := range got {
		if !want[name] {
			t.Errorf("cache holds %s; want only %v", name, shas)
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("cache lacks %s (has %v)", name, got)
	}
}
