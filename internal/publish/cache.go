package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultCacheDir is where a follower of storeURL keeps its builds unless told otherwise: one
// directory per store, so that two stores never prune each other's files.
func DefaultCacheDir(storeURL string) (string, error) {
	loc, err := ParseURL(storeURL)
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(loc.String()))
	return filepath.Join(base, "ctool", "builds", hex.EncodeToString(sum[:8])), nil
}

func cachedBuildPath(dir, sha string) string    { return filepath.Join(dir, sha+".duckdb") }
func cachedManifestPath(dir, sha string) string { return filepath.Join(dir, sha+".json") }

// removePartials deletes what a killed follower was writing: it was never renamed into place, so
// no one can have opened it.
func removePartials(dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, partialPrefix+"*"))
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Remove(name); err != nil {
			return err
		}
	}
	return nil
}

// downloadHook lets a test hold a download midway, to kill its process there.
var downloadHook = func(w io.Writer) io.Writer { return w }

// diskWriter remembers its own write error, so a full disk is told apart from a broken download.
type diskWriter struct {
	f   *os.File
	err error
}

func (w *diskWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// download copies the build m names into dir, checking size and checksum as it streams, and makes
// it visible under <sha>.duckdb only once it is whole and synced.
func download(ctx context.Context, store Store, dir string, m Manifest) (string, error) {
	body, size, err := store.Get(ctx, BuildKey(m.SHA256))
	if err != nil {
		return "", storeFailure(err)
	}
	defer body.Close()
	if size != m.Size {
		return "", &FollowError{FailSize, fmt.Errorf("%s has %d bytes, its manifest says %d", BuildKey(m.SHA256), size, m.Size)}
	}
	tmp, err := os.CreateTemp(dir, partialPrefix+"*")
	if err != nil {
		return "", &FollowError{FailDisk, err}
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	defer tmp.Close()
	h := sha256.New()
	w := &diskWriter{f: tmp}
	n, err := io.Copy(downloadHook(io.MultiWriter(w, h)), io.LimitReader(body, m.Size))
	switch {
	case w.err != nil:
		return "", &FollowError{FailDisk, fmt.Errorf("caching %s: %w", BuildKey(m.SHA256), w.err)}
	case errors.Is(err, ErrCorrupt):
		return "", &FollowError{FailChecksum, fmt.Errorf("reading %s: %w", BuildKey(m.SHA256), err)}
	case err != nil:
		return "", &FollowError{FailUnreachable, fmt.Errorf("reading %s: %w", BuildKey(m.SHA256), err)}
	case n != m.Size:
		return "", &FollowError{FailSize, fmt.Errorf("%s ended after %d of %d bytes", BuildKey(m.SHA256), n, m.Size)}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != m.SHA256 {
		return "", &FollowError{FailChecksum, fmt.Errorf("%s has SHA-256 %s", BuildKey(m.SHA256), got)}
	}
	if err := tmp.Sync(); err != nil {
		return "", &FollowError{FailDisk, err}
	}
	if err := tmp.Close(); err != nil {
		return "", &FollowError{FailDisk, err}
	}
	// The manifest goes first: a cached build is a .duckdb file, and it always has its manifest.
	if err := writeCachedManifest(dir, m); err != nil {
		return "", &FollowError{FailDisk, err}
	}
	path := cachedBuildPath(dir, m.SHA256)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", &FollowError{FailDisk, err}
	}
	if err := syncDir(dir); err != nil {
		return "", &FollowError{FailDisk, err}
	}
	return path, nil
}

func writeCachedManifest(dir string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(cachedManifestPath(dir, m.SHA256), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// readCachedManifest returns the manifest cached for sha, if it is valid and its own.
func readCachedManifest(dir, sha string) (Manifest, error) {
	data, err := os.ReadFile(cachedManifestPath(dir, sha))
	if err != nil {
		return Manifest{}, err
	}
	m, err := ParseManifest(data)
	if err == nil && m.SHA256 != sha {
		err = fmt.Errorf("%s describes build %s", cachedManifestPath(dir, sha), m.SHA256)
	}
	return m, err
}

// checkCachedFile re-reads a cached build and compares it with its manifest: the name alone is
// trusted only within the process that wrote it.
func checkCachedFile(path string, m Manifest) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, n, err := hashFile(f)
	switch {
	case err != nil:
		return err
	case n != m.Size:
		return &FollowError{FailSize, fmt.Errorf("cached %s has %d bytes, not %d", path, n, m.Size)}
	case sum != m.SHA256:
		return &FollowError{FailChecksum, fmt.Errorf("cached %s has SHA-256 %s", path, sum)}
	}
	return nil
}

// cachedBuilds lists the cache's builds that have a valid manifest, newest first: by build time, and
// among builds of the same time (build times are in whole seconds) the one cached last first.
func cachedBuilds(dir string) []Manifest {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Manifest
	cached := map[string]time.Time{}
	for _, e := range entries {
		sha, ok := strings.CutSuffix(e.Name(), ".duckdb")
		if !ok || !isSHA256(sha) || !e.Type().IsRegular() {
			continue
		}
		if m, err := readCachedManifest(dir, sha); err == nil {
			out = append(out, m)
			if info, err := e.Info(); err == nil {
				cached[sha] = info.ModTime()
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return cached[out[i].SHA256].After(cached[out[j].SHA256])
	})
	return out
}

// prune removes every cached build but the ones kept, with their manifests.
func prune(dir string, keep ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		sha := strings.TrimSuffix(strings.TrimSuffix(name, ".duckdb"), ".json")
		if sha == name || !isSHA256(sha) || contains(keep, sha) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
