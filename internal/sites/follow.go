package sites

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/migrations"
)

// CurrentName is the link in a follower's cache directory that names the build being served: the
// path every reader of a followed site opens (database.Live in the server and in each query worker).
// A swap re-points it with one rename, so a reader's next call stats a new file and opens it, while
// calls already running finish on the build they opened.
const CurrentName = "current.duckdb"

// linkPrefix starts the name of a link being made, before it is renamed over CurrentName.
const linkPrefix = ".current-"

// verifyTimeout bounds opening a downloaded build to check it.
const verifyTimeout = time.Minute

// followed is one site's follower with the link it keeps.
type followed struct {
	f     *publish.Follower
	url   string
	dir   string
	swaps atomic.Int64
}

// startFollow takes the cache directory, finds the first build to serve (the store's latest, else
// the newest cached one) and points the link at it.
func startFollow(ctx context.Context, name, url, cacheDir string, interval time.Duration, log *logger) (*followed, error) {
	loc, err := publish.ParseURL(url)
	if err != nil {
		return nil, fault.Errorf(fault.KindUsage, "--follow: %v", err).WithHint("name a store: s3://bucket/prefix or file:///absolute/dir")
	}
	store := &lazyStore{url: loc.String()}
	fw := &followed{url: store.URL()}
	cfg := publish.FollowerConfig{Store: store, CacheDir: cacheDir, Interval: interval, Verify: verify,
		Swap: fw.swap, OnStateChange: func(s publish.Status) { log.state(name, fw.url, s) }}
	if fw.f, err = publish.NewFollower(cfg); err != nil {
		switch {
		case errors.Is(err, publish.ErrCacheInUse):
			return nil, fault.Errorf(fault.KindUsage, "--cache: %v", err).
				WithHint("give each server following the same store a cache directory of its own: --cache DIR")
		}
		return nil, fault.Errorf(fault.KindIO, "--cache: %v", err)
	}
	fw.dir = fw.f.CacheDir()
	if err := removeLinks(fw.dir); err != nil {
		fw.f.Close()
		return nil, fault.Errorf(fault.KindIO, "--cache: %v", err)
	}
	b, err := fw.f.Start(ctx)
	if err == nil {
		err = pointLink(fw.dir, b.Path)
	}
	if err != nil {
		fw.f.Close()
		if errors.Is(err, publish.ErrProfilesStore) {
			return nil, fault.Errorf(fault.KindUsage, "--follow %s: %w", url, err).
				WithHint("follow the store the builds are published to, never the --profiles-to one")
		}
		return nil, noBuild(url, fw.dir, err)
	}
	return fw, nil
}

// lazyStore opens its store at its first use that succeeds: a file:// store whose directory is not
// there (an NFS mount gone) cannot be opened, and the follower must still start from its cache and
// find the store when it is back.
type lazyStore struct {
	url string
	mu  sync.Mutex
	st  publish.Store
}

func (l *lazyStore) open(ctx context.Context) (publish.Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st == nil {
		st, err := publish.Open(ctx, l.url)
		if err != nil {
			return nil, err
		}
		l.st = st
	}
	return l.st, nil
}

func (l *lazyStore) URL() string { return l.url }

func (l *lazyStore) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	st, err := l.open(ctx)
	if err != nil {
		return err
	}
	return st.Put(ctx, key, body, size)
}

func (l *lazyStore) Get(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	st, err := l.open(ctx)
	if err != nil {
		return nil, 0, err
	}
	return st.Get(ctx, key)
}

func (l *lazyStore) Head(ctx context.Context, key string) (int64, error) {
	st, err := l.open(ctx)
	if err != nil {
		return 0, err
	}
	return st.Head(ctx, key)
}

func (l *lazyStore) ReadVersioned(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	st, err := l.open(ctx)
	if err != nil {
		return nil, "", err
	}
	return st.ReadVersioned(ctx, key, limit)
}

func (l *lazyStore) WriteIfVersion(ctx context.Context, key string, data []byte, version string) error {
	st, err := l.open(ctx)
	if err != nil {
		return err
	}
	return st.WriteIfVersion(ctx, key, data, version)
}

// noBuild is the error of a followed site with nothing to serve: no usable database, exit 3.
func noBuild(url, dir string, err error) *fault.Error {
	msg := fmt.Sprintf("%v: %s: %v", publish.ErrNoBuild, url, err)
	if errors.Is(err, publish.ErrNoBuild) {
		msg = err.Error()
	}
	return &fault.Error{Kind: fault.KindNoDatabase, Message: msg,
		Hint: "check that the store answers from this machine (its URL, AWS_ENDPOINT_URL, credentials) and that a build was published to it: ctool publish " + url,
		Err:  errors.Join(database.ErrNoDatabase, err)}
}

// DB is the path a reader of the site opens.
func (fw *followed) DB() string { return filepath.Join(fw.dir, CurrentName) }

// swap serves the build at path: the link is re-pointed, the readers follow at their next call.
func (fw *followed) swap(path string, _ publish.Manifest) error {
	if err := pointLink(fw.dir, path); err != nil {
		return err
	}
	fw.swaps.Add(1)
	return nil
}

// verify opens a downloaded build as every reader does and refuses one that this ctool cannot serve:
// another schema version, or a build record that is not its manifest's.
func verify(path string, m publish.Manifest) error {
	ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
	defer cancel()
	b, err := database.Open(ctx, path)
	if err != nil {
		return err
	}
	defer b.Close()
	want := migrations.Version(migrations.Main)
	got := b.SchemaVersion()
	switch {
	case got != want:
		return fmt.Errorf("build %s has schema version %d and this ctool serves %d: publish a build made by this version of ctool", b.ID, got, want)
	case b.ID != m.BuildID:
		return fmt.Errorf("the file holds build %s and its manifest names build %s", b.ID, m.BuildID)
	case m.SchemaVersion != want:
		return fmt.Errorf("the manifest of build %s says schema version %d and this ctool serves %d", b.ID, m.SchemaVersion, want)
	}
	return nil
}

// pointLink makes dir/CurrentName a link to target (a file in dir), atomically: a reader opening the
// link finds the old build or the new one, never none.
func pointLink(dir, target string) error {
	tmp, err := os.CreateTemp(dir, linkPrefix+"*")
	if err != nil {
		return err
	}
	tmp.Close()
	os.Remove(tmp.Name()) // a name of our own for the link, free again
	if err := os.Symlink(filepath.Base(target), tmp.Name()); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, CurrentName)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// removeLinks removes what a killed server left of a link being made.
func removeLinks(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), linkPrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
