// Package publish puts finished builds in an object store and lets servers follow the newest one.
//
// Layout under a store's prefix:
//
//	builds/<sha256>.duckdb   the build, named by its content
//	builds/<sha256>.json     its Manifest
//	latest                   a Pointer to the current build, written last and only conditionally
//
// Profiles are personal data and go to a store of their own, marked as such (PublishProfiles);
// Publish and the Follower refuse a marked store.
package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// LatestKey is the key of the pointer to the current build.
const LatestKey = "latest"

// ProfilesMarkerKey is the object that marks a store as holding profiles.
const ProfilesMarkerKey = "PROFILES"

const profilesMarker = "This store holds ctool profiles, which are personal data.\n" +
	"ctool refuses to publish builds here or to follow it as a build store.\n"

// BuildKey is the key of a build's DuckDB file.
func BuildKey(sha string) string { return "builds/" + sha + ".duckdb" }

// ManifestKey is the key of a build's manifest.
func ManifestKey(sha string) string { return "builds/" + sha + ".json" }

// ErrLostRace is Publish's error when another publish moved latest between this one's read and its
// write. The build's objects are in the store but nothing names them; publishing again is safe.
var ErrLostRace = errors.New("another publish moved latest first")

// ErrProfilesStore is the refusal to mix builds and profiles in one store.
var ErrProfilesStore = errors.New("builds and profiles must live in separate stores")

// beforePointerWrite runs between reading latest and writing it; tests use it to line up racers.
var beforePointerWrite = func() {}

// Publish uploads the build at localPath with its manifest, then points latest at it. It fills in
// m's SHA256 and Size from the file; the caller sets the other fields. When the same bytes were
// published before, the stored manifest is kept and returned. A store marked for profiles is
// refused with ErrProfilesStore.
func Publish(ctx context.Context, store Store, localPath string, m Manifest) (Manifest, error) {
	if _, err := store.Head(ctx, ProfilesMarkerKey); err == nil {
		return m, fmt.Errorf("%s holds profiles: %w", store.URL(), ErrProfilesStore)
	} else if !errors.Is(err, ErrNotFound) {
		return m, err
	}
	return publish(ctx, store, localPath, m)
}

// PublishProfiles uploads a profiles file with the same layout as Publish, to profiles, a store
// that must not overlap buildsURL (the store the builds go to), so that nobody who follows builds
// can ever download personal data. It marks the store before writing anything into it, and refuses
// a store that already holds builds.
func PublishProfiles(ctx context.Context, profiles Store, buildsURL string, localPath string, m Manifest) (Manifest, error) {
	builds, err := ParseURL(buildsURL)
	if err != nil {
		return m, fmt.Errorf("builds store: %w", err)
	}
	own, err := ParseURL(profiles.URL())
	if err != nil {
		return m, err
	}
	if own.Overlaps(builds) {
		return m, fmt.Errorf("profiles store %s overlaps builds store %s: %w", own, builds, ErrProfilesStore)
	}
	if _, err := profiles.Head(ctx, ProfilesMarkerKey); errors.Is(err, ErrNotFound) {
		if _, err := profiles.Head(ctx, LatestKey); err == nil {
			return m, fmt.Errorf("%s already holds builds: %w", own, ErrProfilesStore)
		} else if !errors.Is(err, ErrNotFound) {
			return m, err
		}
		if err := putBytes(ctx, profiles, ProfilesMarkerKey, []byte(profilesMarker)); err != nil {
			return m, err
		}
	} else if err != nil {
		return m, err
	}
	return publish(ctx, profiles, localPath, m)
}

func publish(ctx context.Context, store Store, localPath string, m Manifest) (Manifest, error) {
	f, err := os.Open(localPath)
	if err != nil {
		return m, err
	}
	defer f.Close()
	if m.SHA256, m.Size, err = hashFile(f); err != nil {
		return m, fmt.Errorf("%s: %w", localPath, err)
	}
	if m.RowCounts == nil {
		m.RowCounts = map[string]int64{}
	}
	if err := checkManifest(m); err != nil {
		return m, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return m, err
	}
	if err := store.Put(ctx, BuildKey(m.SHA256), f, m.Size); err != nil {
		return m, err
	}
	if m, err = putManifest(ctx, store, m); err != nil {
		return m, err
	}
	return m, movePointer(ctx, store, m)
}

// putManifest writes m unless a valid manifest for the same bytes is there already, which it
// returns instead: a build keeps the manifest it was first published with.
func putManifest(ctx context.Context, store Store, m Manifest) (Manifest, error) {
	key := ManifestKey(m.SHA256)
	sameBuild := func(data []byte) (Manifest, bool) {
		old, err := ParseManifest(data)
		return old, err == nil && old.SHA256 == m.SHA256 && old.Size == m.Size
	}
	data, version, err := store.ReadVersioned(ctx, key, maxManifestBytes)
	switch {
	case err == nil:
		if old, ok := sameBuild(data); ok {
			return old, nil
		}
		// a broken manifest under this key: replace it, conditionally like any shared write
	case errors.Is(err, ErrNotFound):
		version = ""
	default:
		return m, err
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	err = store.WriteIfVersion(ctx, key, body, version)
	if errors.Is(err, ErrConflict) { // a concurrent publish of the same bytes wrote it first
		if data, _, err = store.ReadVersioned(ctx, key, maxManifestBytes); err != nil {
			return m, err
		}
		if old, ok := sameBuild(data); ok {
			return old, nil
		}
		return m, fmt.Errorf("%s: %s changed under this publish and is not valid", store.URL(), key)
	}
	return m, err
}

// movePointer points latest at m if nobody else moves it in between.
func movePointer(ctx context.Context, store Store, m Manifest) error {
	var seq int64
	data, version, err := store.ReadVersioned(ctx, LatestKey, maxPointerBytes)
	switch {
	case err == nil:
		// An unreadable pointer names nothing a reader could use: it is replaced, still conditionally.
		if cur, perr := ParsePointer(data); perr == nil {
			if cur.SHA256 == m.SHA256 {
				return nil // already current
			}
			seq = cur.Sequence
		}
	case errors.Is(err, ErrNotFound):
		version = ""
	default:
		return err
	}
	beforePointerWrite()
	next := Pointer{SHA256: m.SHA256, Manifest: m.SHA256 + ".json", Sequence: seq + 1, PublishedAt: time.Now().UTC()}
	body, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	err = store.WriteIfVersion(ctx, LatestKey, body, version)
	if errors.Is(err, ErrConflict) {
		winner := "another build"
		if data, _, rerr := store.ReadVersioned(ctx, LatestKey, maxPointerBytes); rerr == nil {
			if p, perr := ParsePointer(data); perr == nil {
				winner = fmt.Sprintf("build %s (sequence %d)", p.SHA256, p.Sequence)
			}
		}
		return fmt.Errorf("%s: latest now names %s; %s was uploaded but is not current: %w",
			store.URL(), winner, m.SHA256, ErrLostRace)
	}
	return err
}

func putBytes(ctx context.Context, store Store, key string, data []byte) error {
	return store.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
}

// hashFile returns the SHA-256 (lowercase hex) and size of what is left to read in r.
func hashFile(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
