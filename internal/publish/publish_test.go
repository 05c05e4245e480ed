package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Publish, then follow: start, a republish of the same bytes, two newer builds, and Run.
func TestPublishAndFollow(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			a, pathA := publishNew(t, st, "a", 100_000)
			if p := readPointer(t, st); p.SHA256 != a.SHA256 || p.Sequence != 1 {
				t.Fatalf("latest = %+v, want build a at sequence 1", p)
			}
			var swaps []Manifest
			var changes []Status
			cache := t.TempDir()
			f, err := NewFollower(FollowerConfig{Store: st, CacheDir: cache, Interval: time.Second,
				Verify:        refusePartials(t),
				Swap:          func(_ string, m Manifest) error { swaps = append(swaps, m); return nil },
				OnStateChange: func(s Status) { changes = append(changes, s) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := f.Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			local, _ := os.ReadFile(pathA)
			cached, _ := os.ReadFile(got.Path)
			if got.Manifest.SHA256 != a.SHA256 || !bytes.Equal(local, cached) || got.Manifest.Place != "渋谷" {
				t.Fatalf("Start = %+v, want build a's bytes and manifest", got.Manifest)
			}

			// The same bytes again keep their first manifest and do not move latest.
			again, err := Publish(ctx, st, pathA, testManifest("a-again"))
			if err != nil || again.BuildID != "a" || readPointer(t, st).Sequence != 1 {
				t.Fatalf("republish = %+v, %v; want build a's manifest and latest unmoved", again, err)
			}
			if err := f.CheckOnce(ctx); err != nil || len(swaps) != 0 {
				t.Fatalf("CheckOnce with nothing new = %v, swaps %d", err, len(swaps))
			}

			bm, _ := publishNew(t, st, "b", 50_000)
			cm, _ := publishNew(t, st, "c", 70_000)
			if err := f.CheckOnce(ctx); err != nil || len(swaps) != 1 || swaps[0].SHA256 != cm.SHA256 {
				t.Fatalf("CheckOnce = %v, swaps %v; want a swap to c", err, swaps)
			}
			wantCache(t, cache, a.SHA256, cm.SHA256) // current and previous
			dm, _ := publishNew(t, st, "d", 10_000)
			if err := f.CheckOnce(ctx); err != nil || len(swaps) != 2 || swaps[1].SHA256 != dm.SHA256 {
				t.Fatalf("CheckOnce = %v, swaps %v; want a swap to d", err, swaps)
			}
			wantCache(t, cache, cm.SHA256, dm.SHA256)
			_ = bm

			// Run picks up a new build on its own.
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error)
			go func() { done <- f.Run(runCtx) }()
			em, _ := publishNew(t, st, "e", 20_000)
			deadline := time.Now().Add(10 * time.Second)
			for f.Status().Current.SHA256 != em.SHA256 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			stop()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
			s := f.Status()
			if s.Current.SHA256 != em.SHA256 || s.State != StateCurrent || s.CurrentPath != cachedBuildPath(cache, em.SHA256) {
				t.Fatalf("after Run: %+v, want build e current", s)
			}
			if len(changes) != 4 || changes[3].Seq != 4 || s.Seq != 4 {
				t.Errorf("state changes = %d (last seq %d), want 4: start, c, d, e", len(changes), s.Seq)
			}
			if len(s.Failures) != 0 {
				t.Errorf("failures = %v, want none", s.Failures)
			}
		})
	}
}

// Publishers at once: every pointer move is a compare-and-swap, so one publisher wins each race,
// the others are told so, and latest only ever names a build whose objects are all there.
func TestConcurrentPublishers(t *testing.T) {
	const n = 8
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			paths := make([]string, 2*n)
			for i := range paths {
				paths[i], _ = writeBuild(t, 20_000+i)
			}
			publishAll := func(paths []string) []error {
				errs := make([]error, len(paths))
				var wg sync.WaitGroup
				for i, p := range paths {
					wg.Go(func() { _, errs[i] = Publish(ctx, st, p, testManifest(fmt.Sprint("r", i))) })
				}
				wg.Wait()
				return errs
			}
			winners := func(errs []error) int {
				won := 0
				for i, err := range errs {
					switch {
					case err == nil:
						won++
					case !errors.Is(err, ErrLostRace):
						t.Errorf("publisher %d: %v, want success or ErrLostRace", i, err)
					}
				}
				return won
			}

			// Lined up: all read latest (absent) before any writes it. Exactly one wins.
			var arrived sync.WaitGroup
			arrived.Add(n)
			release := make(chan struct{})
			beforePointerWrite = func() { arrived.Done(); <-release }
			defer func() { beforePointerWrite = func() {} }()
			go func() {
				waited := make(chan struct{})
				go func() { arrived.Wait(); close(waited) }()
				select {
				case <-waited:
				case <-time.After(30 * time.Second):
					t.Error("the publishers never all reached the pointer write")
				}
				close(release)
			}()
			if won := winners(publishAll(paths[:n])); won != 1 {
				t.Fatalf("%d publishers won one race, want exactly 1", won)
			}
			if p := readPointer(t, st); p.Sequence != 1 {
				t.Fatalf("latest sequence = %d after one race, want 1", p.Sequence)
			}
			beforePointerWrite = func() {}

			// Free-running, with a reader checking every pointer it sees.
			stop := make(chan struct{})
			var seen atomic.Int64
			readerDone := make(chan struct{})
			go func() {
				defer close(readerDone)
				for {
					select {
					case <-stop:
						return
					default:
					}
					data, _, err := st.ReadVersioned(ctx, LatestKey, maxPointerBytes)
					if err != nil {
						t.Errorf("reader: %v", err)
						return
					}
					p, err := ParsePointer(data)
					if err != nil {
						t.Errorf("reader: %v", err)
						return
					}
					for _, key := range []string{ManifestKey(p.SHA256), BuildKey(p.SHA256)} {
						if _, err := st.Head(ctx, key); err != nil {
							t.Errorf("latest (sequence %d) names %s, which is not there: %v", p.Sequence, key, err)
						}
					}
					seen.Add(1)
				}
			}()
			won := winners(publishAll(paths[n:]))
			close(stop)
			<-readerDone
			p := readPointer(t, st)
			if won < 1 || p.Sequence != int64(1+won) {
				t.Fatalf("%d winners, latest sequence %d: want at least one winner and one move each", won, p.Sequence)
			}
			t.Logf("%d of %d free-running publishers moved latest; the reader checked %d pointers", won, n, seen.Load())
		})
	}
}

// Profiles go to their own store, and a builds path never reaches one.
func TestProfilesStoreIsSeparate(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			newStore := b.start(t)
			builds, profiles := newStore("builds"), newStore("profiles")
			path, _ := writeBuild(t, 5_000)
			for _, url := range []string{profiles.URL(), profiles.URL() + "/sub", parentURL(profiles.URL())} {
				if _, err := PublishProfiles(ctx, profiles, url, path, testManifest("p")); !errors.Is(err, ErrProfilesStore) {
					t.Errorf("PublishProfiles with builds URL %s = %v, want ErrProfilesStore", url, err)
				}
			}
			if _, err := PublishProfiles(ctx, profiles, builds.URL(), path, testManifest("p")); err != nil {
				t.Fatal(err)
			}
			if _, err := profiles.Head(ctx, ProfilesMarkerKey); err != nil {
				t.Fatalf("profiles store is not marked: %v", err)
			}
			if _, err := Publish(ctx, profiles, path, testManifest("p")); !errors.Is(err, ErrProfilesStore) {
				t.Errorf("Publish to the profiles store = %v, want ErrProfilesStore", err)
			}
			var swaps []Manifest
			if _, err := newFollower(t, profiles, t.TempDir(), &swaps).Start(ctx); !errors.Is(err, ErrProfilesStore) {
				t.Errorf("following the profiles store = %v, want ErrProfilesStore", err)
			}
			publishNew(t, builds, "b", 5_000)
			if _, err := PublishProfiles(ctx, builds, profiles.URL(), path, testManifest("p")); !errors.Is(err, ErrProfilesStore) {
				t.Errorf("PublishProfiles to a builds store = %v, want ErrProfilesStore", err)
			}
			if _, err := builds.Head(ctx, ProfilesMarkerKey); !errors.Is(err, ErrNotFound) {
				t.Errorf("the refused builds store was marked: %v", err)
			}
		})
	}
}

// parentURL is the URL one level up, which contains the store.
func parentURL(url string) string {
	i := len(url) - 1
	for url[i] != '/' {
		i--
	}
	return url[:i]
}

// The store contract both implementations keep.
func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("contract")
			if _, _, err := st.Get(ctx, "nothing"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get of a missing key = %v, want ErrNotFound", err)
			}
			if _, err := st.Head(ctx, "nothing"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Head of a missing key = %v, want ErrNotFound", err)
			}
			if err := st.WriteIfVersion(ctx, "p", []byte("one"), ""); err != nil {
				t.Fatal(err)
			}
			if err := st.WriteIfVersion(ctx, "p", []byte("two"), ""); !errors.Is(err, ErrConflict) {
				t.Errorf("create over an existing object = %v, want ErrConflict", err)
			}
			data, v1, err := st.ReadVersioned(ctx, "p", 10)
			if err != nil || string(data) != "one" {
				t.Fatalf("ReadVersioned = %q, %v", data, err)
			}
			if err := st.WriteIfVersion(ctx, "p", []byte("two"), v1); err != nil {
				t.Fatal(err)
			}
			if err := st.WriteIfVersion(ctx, "p", []byte("three"), v1); !errors.Is(err, ErrConflict) {
				t.Errorf("write on a stale version = %v, want ErrConflict", err)
			}
			if _, _, err := st.ReadVersioned(ctx, "p", 2); err == nil {
				t.Error("ReadVersioned over its limit succeeded")
			}
			for _, key := range []string{"../x", "/x", "a/../b", "a//b", ""} {
				if _, err := st.Head(ctx, key); err == nil || errors.Is(err, ErrNotFound) {
					t.Errorf("Head(%q) = %v, want the key refused", key, err)
				}
			}
			if err := st.Put(ctx, "o", bytes.NewReader([]byte("12345")), 5); err != nil {
				t.Fatal(err)
			}
			// Same key and size: left alone (content-addressed keys make that the same object).
			if err := st.Put(ctx, "o", bytes.NewReader([]byte("abcde")), 5); err != nil {
				t.Fatal(err)
			}
			r, size, err := st.Get(ctx, "o")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var buf bytes.Buffer
			buf.ReadFrom(r)
			if size != 5 || buf.String() != "12345" {
				t.Errorf("Get = %q (%d bytes), want the first write", buf.String(), size)
			}
		})
	}
}

// A broken pointer or manifest in the store is replaced by the next publish, still conditionally.
func TestPublishRepairs(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			a, pathA := publishNew(t, st, "a", 3_000)
			_, version, err := st.ReadVersioned(ctx, LatestKey, maxPointerBytes)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.WriteIfVersion(ctx, LatestKey, []byte("garbage"), version); err != nil {
				t.Fatal(err)
			}
			_, mv, err := st.ReadVersioned(ctx, ManifestKey(a.SHA256), maxManifestBytes)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.WriteIfVersion(ctx, ManifestKey(a.SHA256), []byte(`{"size":1}`), mv); err != nil {
				t.Fatal(err)
			}
			again, err := Publish(ctx, st, pathA, testManifest("a2"))
			if err != nil || again.BuildID != "a2" {
				t.Fatalf("publish over a broken manifest = %+v, %v; want the new manifest", again, err)
			}
			if p := readPointer(t, st); p.SHA256 != a.SHA256 || p.Sequence != 1 {
				t.Fatalf("latest = %+v, want a, sequence 1 after the garbage", p)
			}
			data, _, _ := st.ReadVersioned(ctx, ManifestKey(a.SHA256), maxManifestBytes)
			if m, err := ParseManifest(data); err != nil || m.BuildID != "a2" {
				t.Fatalf("stored manifest = %+v, %v", m, err)
			}
			if _, err := Publish(ctx, st, filepath.Join(t.TempDir(), "none"), testManifest("x")); err == nil {
				t.Error("publishing a missing file succeeded")
			}
			bad := testManifest("../x")
			if _, err := Publish(ctx, st, pathA, bad); err == nil || !strings.Contains(err.Error(), "build_id") {
				t.Errorf("publishing with build_id %q = %v, want it refused", bad.BuildID, err)
			}
		})
	}
}
