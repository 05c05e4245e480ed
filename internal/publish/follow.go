package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultInterval and MinInterval bound how often a follower reads latest.
const (
	DefaultInterval = 30 * time.Second
	MinInterval     = time.Second
)

// DefaultCheckTimeout bounds one check, download included, so that a store that stops answering
// without closing the connection still shows as a failure.
const DefaultCheckTimeout = 15 * time.Minute

// ErrNoBuild is Start's error when the store gives no usable build and the cache has none either:
// there is nothing to serve.
var ErrNoBuild = errors.New("no build to serve")

// ErrCacheInUse is NewFollower's error when another follower holds the cache directory.
var ErrCacheInUse = errors.New("the cache directory is in use by another follower")

// FailureKind names one way a check can fail; Status counts failures by kind.
type FailureKind string

const (
	FailUnreachable FailureKind = "unreachable" // the store did not answer, or broke off
	FailMissing     FailureKind = "missing"     // latest, or an object it names, is not there
	FailInvalid     FailureKind = "invalid"     // latest or a manifest is malformed or inconsistent
	FailSize        FailureKind = "size"        // the build's size is not its manifest's
	FailChecksum    FailureKind = "checksum"    // the build's bytes are not its manifest's
	FailDisk        FailureKind = "disk"        // the cache could not be written (full, read-only)
	FailVerify      FailureKind = "verify"      // the caller's verify refused the build
	FailSwap        FailureKind = "swap"        // the caller's swap failed
)

// FollowError is a failed check, with its kind.
type FollowError struct {
	Kind FailureKind
	Err  error
}

func (e *FollowError) Error() string { return string(e.Kind) + ": " + e.Err.Error() }
func (e *FollowError) Unwrap() error { return e.Err }

// State is where a follower stands.
type State string

const (
	StateStarting State = "starting" // Start has not yet found a build
	StateCurrent  State = "current"  // the last check succeeded
	StateFailing  State = "failing"  // the last check failed; the current build is still served
)

// Status is a snapshot of a follower, for logs and health endpoints.
type Status struct {
	Seq           uint64 // goes up by one with each change of state: log when it moves
	State         State
	Current       Manifest // the build being served; zero before Start succeeds
	CurrentPath   string
	SwappedAt     time.Time // when Current was taken
	LastCheckAt   time.Time
	LastError     string
	LastErrorKind FailureKind
	LastErrorAt   time.Time
	Failures      map[FailureKind]int
}

// Build is a cached build ready to open.
type Build struct {
	Path     string
	Manifest Manifest
}

// FollowerConfig configures NewFollower.
type FollowerConfig struct {
	Store    Store
	CacheDir string        // "" for DefaultCacheDir(Store.URL())
	Interval time.Duration // 0 for DefaultInterval; less than MinInterval is refused
	// CheckTimeout bounds Start's and each check's work; 0 for DefaultCheckTimeout.
	CheckTimeout time.Duration
	// Verify checks a downloaded build before it is served (the caller opens it and checks its
	// schema version); nil accepts every build whose checksum matches.
	Verify func(path string, m Manifest) error
	// Swap makes the caller serve the build; Run needs it. The cache keeps the previous build
	// until the next swap, so the caller may finish what it had open on it.
	Swap func(path string, m Manifest) error
	// OnStateChange, if set, is called (outside the follower's lock) after each change of state.
	OnStateChange func(Status)
}

// Follower keeps a local copy of the build a store's latest names.
type Follower struct {
	cfg      FollowerConfig
	dir      string
	unlock   func()
	checking sync.Mutex // one check at a time, whoever calls
	mu       sync.Mutex // guards status, previous and checked
	status   Status
	previous string          // the build served before Current: kept in the cache
	checked  map[string]bool // cached builds whose bytes were checked by this process
}

// NewFollower checks cfg, takes the cache directory for itself and removes what a killed follower
// left half-written there.
func NewFollower(cfg FollowerConfig) (*Follower, error) {
	if cfg.Store == nil {
		return nil, errors.New("follower: no store")
	}
	switch {
	case cfg.Interval == 0:
		cfg.Interval = DefaultInterval
	case cfg.Interval < MinInterval:
		return nil, fmt.Errorf("follower: interval %s is under the minimum of %s", cfg.Interval, MinInterval)
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = DefaultCheckTimeout
	}
	if cfg.Verify == nil {
		cfg.Verify = func(string, Manifest) error { return nil }
	}
	dir := cfg.CacheDir
	if dir == "" {
		var err error
		if dir, err = DefaultCacheDir(cfg.Store.URL()); err != nil {
			return nil, fmt.Errorf("follower: cache directory: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("follower: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"), false)
	if errors.Is(err, errLocked) {
		return nil, fmt.Errorf("follower: %s: %w", dir, ErrCacheInUse)
	} else if err != nil {
		return nil, fmt.Errorf("follower: %w", err)
	}
	if err := removePartials(dir); err != nil {
		unlock()
		return nil, fmt.Errorf("follower: %w", err)
	}
	f := &Follower{cfg: cfg, dir: dir, unlock: unlock, checked: map[string]bool{}}
	f.status = Status{State: StateStarting, Failures: map[FailureKind]int{}}
	return f, nil
}

// CacheDir is the directory the follower keeps builds in.
func (f *Follower) CacheDir() string { return f.dir }

// Close lets another follower use the cache directory.
func (f *Follower) Close() error {
	f.unlock()
	return nil
}

// Start finds the build to serve first: the one latest names, downloaded and verified; failing
// that (store unreachable, a broken build), the newest cached build whose bytes still match its
// manifest and that verify accepts. With neither it returns ErrNoBuild. A store marked for
// profiles is refused with ErrProfilesStore. Start does not call Swap: the caller opens the build.
func (f *Follower) Start(ctx context.Context) (Build, error) {
	f.checking.Lock()
	defer f.checking.Unlock()
	ctx, cancel := context.WithTimeout(ctx, f.cfg.CheckTimeout)
	defer cancel()
	if _, err := f.cfg.Store.Head(ctx, ProfilesMarkerKey); err == nil {
		return Build{}, fmt.Errorf("%s holds profiles: %w", f.cfg.Store.URL(), ErrProfilesStore)
	}
	b, _, err := f.fetch(ctx, "")
	if err == nil {
		f.take(b, false)
		return b, nil
	}
	f.fail(err)
	for _, m := range cachedBuilds(f.dir) {
		c := Build{Path: cachedBuildPath(f.dir, m.SHA256), Manifest: m}
		if f.checkCached(c) == nil && f.cfg.Verify(c.Path, m) == nil {
			f.take(c, true)
			return c, nil
		}
	}
	return Build{}, fmt.Errorf("%w: %s has none (%v) and %s holds no usable one", ErrNoBuild, f.cfg.Store.URL(), err, f.dir)
}

// CheckOnce reads latest and, when it names another build, downloads, verifies and swaps to it.
// On any failure the current build stays; the error is also recorded in Status.
func (f *Follower) CheckOnce(ctx context.Context) error {
	if f.cfg.Swap == nil {
		return errors.New("follower: no swap function")
	}
	f.checking.Lock()
	defer f.checking.Unlock()
	ctx, cancel := context.WithTimeout(ctx, f.cfg.CheckTimeout)
	defer cancel()
	b, changed, err := f.fetch(ctx, f.Status().Current.SHA256)
	if err == nil && changed {
		if serr := f.cfg.Swap(b.Path, b.Manifest); serr != nil {
			err = &FollowError{FailSwap, serr}
		}
	}
	if err != nil {
		f.fail(err)
		return err
	}
	if changed {
		f.take(b, false)
	} else {
		f.ok()
	}
	return nil
}

// Run checks every interval until ctx ends; failures are in Status, not returned.
func (f *Follower) Run(ctx context.Context) error {
	if f.cfg.Swap == nil {
		return errors.New("follower: no swap function")
	}
	t := time.NewTicker(f.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			f.CheckOnce(ctx)
		}
	}
}

// fetch returns the build latest names, cached and verified, unless it is current.
func (f *Follower) fetch(ctx context.Context, current string) (Build, bool, error) {
	store := f.cfg.Store
	data, _, err := store.ReadVersioned(ctx, LatestKey, maxPointerBytes)
	if err != nil {
		return Build{}, false, storeFailure(err)
	}
	p, err := ParsePointer(data)
	if err != nil {
		return Build{}, false, &FollowError{FailInvalid, err}
	}
	if p.SHA256 == current {
		return Build{}, false, nil
	}
	body, _, err := store.ReadVersioned(ctx, ManifestKey(p.SHA256), maxManifestBytes)
	if err != nil {
		return Build{}, false, storeFailure(err)
	}
	m, err := ParseManifest(body)
	if err == nil && m.SHA256 != p.SHA256 {
		err = fmt.Errorf("%s describes build %s", ManifestKey(p.SHA256), m.SHA256)
	}
	if err != nil {
		return Build{}, false, &FollowError{FailInvalid, err}
	}
	b := Build{Path: cachedBuildPath(f.dir, m.SHA256), Manifest: m}
	if f.isCached(b) {
		if err := writeCachedManifest(f.dir, m); err != nil { // the store's manifest wins
			return Build{}, false, &FollowError{FailDisk, err}
		}
	} else {
		if b.Path, err = download(ctx, store, f.dir, m); err != nil {
			return Build{}, false, err
		}
		f.markChecked(m.SHA256)
	}
	if err := f.cfg.Verify(b.Path, m); err != nil {
		return Build{}, false, &FollowError{FailVerify, err}
	}
	return b, true, nil
}

// isCached reports whether b is in the cache, whole.
func (f *Follower) isCached(b Build) bool {
	_, err := os.Stat(b.Path)
	return err == nil && f.checkCached(b) == nil
}

// checkCached re-hashes a cached build the first time this process uses it.
func (f *Follower) checkCached(b Build) error {
	f.mu.Lock()
	done := f.checked[b.Manifest.SHA256]
	f.mu.Unlock()
	if done {
		return nil
	}
	if err := checkCachedFile(b.Path, b.Manifest); err != nil {
		return err
	}
	f.markChecked(b.Manifest.SHA256)
	return nil
}

func (f *Follower) markChecked(sha string) {
	f.mu.Lock()
	f.checked[sha] = true
	f.mu.Unlock()
}

// storeFailure sorts a store error: absent, or the store itself failing.
func storeFailure(err error) error {
	if errors.Is(err, ErrNotFound) {
		return &FollowError{FailMissing, err}
	}
	if errors.Is(err, ErrCorrupt) {
		return &FollowError{FailChecksum, err}
	}
	return &FollowError{FailUnreachable, err}
}
