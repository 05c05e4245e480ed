package publish

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain also serves as the child process of TestKilledDownload.
func TestMain(m *testing.M) {
	if os.Getenv("CTOOL_PUBLISH_CHILD") != "" {
		childDownload()
		return
	}
	os.Exit(m.Run())
}

func wantKind(t *testing.T, err error, kind FailureKind) {
	t.Helper()
	var fe *FollowError
	if !errors.As(err, &fe) || fe.Kind != kind {
		t.Fatalf("error = %v, want a %s failure", err, kind)
	}
}

// wantNoPartials checks that nothing half-written is left in the cache.
func wantNoPartials(t *testing.T, dir string) {
	t.Helper()
	for _, name := range cacheNames(t, dir) {
		if strings.HasPrefix(name, partialPrefix) {
			t.Errorf("cache holds partial file %s", name)
		}
	}
}

// The store down when a server starts: the newest cached build if there is one, else ErrNoBuild.
func TestStoreDownAtStart(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			a, _ := publishNew(t, st, "a", 30_000)
			cache := t.TempDir()
			var swaps []Manifest
			first := newFollower(t, st, cache, &swaps)
			if _, err := first.Start(ctx); err != nil {
				t.Fatal(err)
			}
			first.Close()
			if g, err := NewFollower(FollowerConfig{Store: st, CacheDir: cache}); err != nil {
				t.Fatalf("cache still locked after Close: %v", err)
			} else {
				g.Close()
			}

			st.down()
			defer st.up()
			empty := newFollower(t, st, t.TempDir(), &swaps)
			if _, err := empty.Start(ctx); !errors.Is(err, ErrNoBuild) {
				t.Fatalf("Start with the store down and no cache = %v, want ErrNoBuild", err)
			}
			if s := empty.Status(); s.State != StateStarting || s.Failures[FailUnreachable] != 1 {
				t.Errorf("status = %+v, want starting with one unreachable failure", s)
			}

			again := newFollower(t, st, cache, &swaps)
			got, err := again.Start(ctx)
			if err != nil || got.Manifest.SHA256 != a.SHA256 || got.Path != cachedBuildPath(cache, a.SHA256) {
				t.Fatalf("Start with the store down = %+v, %v; want cached build a", got, err)
			}
			s := again.Status()
			if s.State != StateFailing || s.LastErrorKind != FailUnreachable || s.Current.SHA256 != a.SHA256 {
				t.Errorf("status = %+v, want failing (unreachable) while serving a", s)
			}
			// A cached file whose bytes no longer match is not served.
			os.WriteFile(got.Path, []byte("damaged"), 0o644)
			if _, err := newFollowerAfterClose(t, again, st, cache).Start(ctx); !errors.Is(err, ErrNoBuild) {
				t.Errorf("Start with only a damaged cached build = %v, want ErrNoBuild", err)
			}
		})
	}
}

func newFollowerAfterClose(t *testing.T, old *Follower, st Store, cache string) *Follower {
	old.Close()
	var swaps []Manifest
	return newFollower(t, st, cache, &swaps)
}

// The store down while serving: the build stays, the failure is counted, the state changes once,
// and the follower recovers when the store is back.
func TestStoreDownMidRun(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			a, _ := publishNew(t, st, "a", 30_000)
			var swaps []Manifest
			f := newFollower(t, st, t.TempDir(), &swaps)
			if _, err := f.Start(ctx); err != nil {
				t.Fatal(err)
			}
			seq := f.Status().Seq
			st.down()
			for i := 1; i <= 2; i++ {
				wantKind(t, f.CheckOnce(ctx), FailUnreachable)
				s := f.Status()
				if s.Current.SHA256 != a.SHA256 || s.State != StateFailing || s.Failures[FailUnreachable] != i {
					t.Fatalf("check %d with the store down: %+v", i, s)
				}
				if s.Seq != seq+1 || s.LastErrorAt.IsZero() {
					t.Errorf("check %d: seq %d, want %d: one change of state for the same failure", i, s.Seq, seq+1)
				}
			}
			st.up()
			if err := f.CheckOnce(ctx); err != nil {
				t.Fatalf("check with the store back: %v", err)
			}
			bm, _ := publishNew(t, st, "b", 30_000)
			if err := f.CheckOnce(ctx); err != nil {
				t.Fatal(err)
			}
			s := f.Status()
			if s.Current.SHA256 != bm.SHA256 || s.State != StateCurrent || len(swaps) != 1 || s.Seq != seq+3 {
				t.Fatalf("after recovery: %+v, swaps %d; want b current", s, len(swaps))
			}
		})
	}
}

// A damaged or refused build is never swapped in, and leaves nothing behind in the cache.
func TestBrokenBuilds(t *testing.T) {
	ctx := context.Background()
	damage := []struct {
		name string
		kind FailureKind
		do   func(t *testing.T, st *testStore, m Manifest)
	}{
		{"cut short", FailSize, func(t *testing.T, st *testStore, m Manifest) {
			path := st.objectPath(BuildKey(m.SHA256))
			data, _ := os.ReadFile(path)
			os.WriteFile(path, data[:len(data)/2], 0o644)
		}},
		{"other bytes", FailChecksum, func(t *testing.T, st *testStore, m Manifest) {
			path := st.objectPath(BuildKey(m.SHA256))
			data, _ := os.ReadFile(path)
			data[len(data)/2] ^= 0xff
			os.WriteFile(path, data, 0o644)
		}},
		{"object missing", FailMissing, func(t *testing.T, st *testStore, m Manifest) {
			os.Remove(st.objectPath(BuildKey(m.SHA256)))
		}},
		{"manifest missing", FailMissing, func(t *testing.T, st *testStore, m Manifest) {
			os.Remove(st.objectPath(ManifestKey(m.SHA256)))
		}},
		{"pointer garbage", FailInvalid, func(t *testing.T, st *testStore, m Manifest) {
			ctx := context.Background()
			_, version, err := st.ReadVersioned(ctx, LatestKey, maxPointerBytes)
			if err == nil {
				err = st.WriteIfVersion(ctx, LatestKey, []byte(`{"sha256":"../../etc/passwd"}`), version)
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"schema too new", FailVerify, nil},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			newStore := b.start(t)
			for _, c := range damage {
				t.Run(c.name, func(t *testing.T) {
					st := newStore(strings.ReplaceAll(c.name, " ", "-"))
					a, _ := publishNew(t, st, "a", 40_000)
					var swaps []Manifest
					cache := t.TempDir()
					f := newFollower(t, st, cache, &swaps)
					if _, err := f.Start(ctx); err != nil {
						t.Fatal(err)
					}
					path, _ := writeBuild(t, 40_000)
					m := testManifest("b")
					if c.do == nil {
						m.SchemaVersion = 2
					}
					bm, err := Publish(ctx, st, path, m)
					if err != nil {
						t.Fatal(err)
					}
					if c.do != nil {
						c.do(t, st, bm)
					}
					wantKind(t, f.CheckOnce(ctx), c.kind)
					s := f.Status()
					if s.Current.SHA256 != a.SHA256 || len(swaps) != 0 || s.Failures[c.kind] != 1 || s.State != StateFailing {
						t.Fatalf("status = %+v, swaps %d; want a kept and one %s failure", s, len(swaps), c.kind)
					}
					wantNoPartials(t, cache)
					if c.kind != FailVerify { // a refused build is whole: it may stay until the next swap
						wantCache(t, cache, a.SHA256)
					}
				})
			}
		})
	}
}

// A follower killed mid-download leaves only a partial file, which the next one removes unread.
func TestKilledDownload(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.start(t)("builds")
			a, _ := publishNew(t, st, "a", 1<<20)
			cache := t.TempDir()
			marker := filepath.Join(t.TempDir(), "writing")
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "CTOOL_PUBLISH_CHILD=1",
				"CTOOL_CHILD_URL="+st.URL(), "CTOOL_CHILD_CACHE="+cache, "CTOOL_CHILD_MARKER="+marker)
			out, _ := os.Create(filepath.Join(t.TempDir(), "child.log"))
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					log, _ := os.ReadFile(out.Name())
					t.Fatalf("the child never started writing:\n%s", log)
				}
			}
			cmd.Process.Kill() // SIGKILL: no deferred cleanup runs
			cmd.Wait()
			partials, _ := filepath.Glob(filepath.Join(cache, partialPrefix+"*"))
			if len(partials) != 1 {
				t.Fatalf("after the kill the cache holds %v, want one partial file", cacheNames(t, cache))
			}
			if info, err := os.Stat(partials[0]); err != nil || info.Size() == 0 || info.Size() >= a.Size {
				t.Fatalf("partial file: %v, %v; want some but not all of the build", info, err)
			}
			var swaps []Manifest
			f := newFollower(t, st, cache, &swaps)
			wantNoPartials(t, cache) // removed before anything could open it
			got, err := f.Start(ctx)
			if err != nil || got.Manifest.SHA256 != a.SHA256 {
				t.Fatalf("Start after the kill = %+v, %v", got, err)
			}
			wantCache(t, cache, a.SHA256)
		})
	}
}

// childDownload is the process TestKilledDownload kills: it starts a follower whose download
// stops after its first write, says so, and waits to be killed.
func childDownload() {
	downloadHook = func(w io.Writer) io.Writer { return &stallingWriter{w: w} }
	st, err := Open(context.Background(), os.Getenv("CTOOL_CHILD_URL"))
	if err != nil {
		panic(err)
	}
	f, err := NewFollower(FollowerConfig{Store: st, CacheDir: os.Getenv("CTOOL_CHILD_CACHE")})
	if err != nil {
		panic(err)
	}
	f.Start(context.Background())
	panic("the download finished; it should have stalled")
}

type stallingWriter struct{ w io.Writer }

func (s *stallingWriter) Write(p []byte) (int, error) {
	s.w.Write(p)
	os.WriteFile(os.Getenv("CTOOL_CHILD_MARKER"), nil, 0o644)
	for {
		time.Sleep(time.Hour) // until killed (a bare select{} could end as a deadlock)
	}
}

func TestFollowerConfig(t *testing.T) {
	st := mustOpen(t, "file://"+t.TempDir())
	for _, c := range []struct {
		interval time.Duration
		want     time.Duration
	}{{0, 30 * time.Second}, {time.Second, time.Second}, {999 * time.Millisecond, 0}, {-time.Second, 0}} {
		f, err := NewFollower(FollowerConfig{Store: st, CacheDir: t.TempDir(), Interval: c.interval})
		if c.want == 0 {
			if err == nil {
				t.Errorf("interval %s accepted", c.interval)
			}
			continue
		}
		if err != nil || f.cfg.Interval != c.want {
			t.Errorf("interval %s: %v", c.interval, err)
		}
		f.Close()
	}
	cache := t.TempDir()
	f, err := NewFollower(FollowerConfig{Store: st, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := NewFollower(FollowerConfig{Store: st, CacheDir: cache}); !errors.Is(err, ErrCacheInUse) {
		t.Errorf("a second follower on one cache = %v, want ErrCacheInUse", err)
	}
	if err := f.CheckOnce(context.Background()); err == nil {
		t.Error("CheckOnce without a swap function succeeded")
	}
	dir, err := DefaultCacheDir("s3://bucket/prefix/")
	other, _ := DefaultCacheDir("s3://bucket/other")
	same, _ := DefaultCacheDir("s3://bucket/prefix")
	if err != nil || dir != same || dir == other || !strings.Contains(dir, filepath.Join("ctool", "builds")) {
		t.Errorf("DefaultCacheDir = %q, %v (other %q, same %q)", dir, err, other, same)
	}
}
