package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// ErrNotFound is a Store's answer for a key that holds no object.
var ErrNotFound = errors.New("no such object")

// ErrConflict is WriteIfVersion's answer when the object changed since it was read: another writer
// got there first.
var ErrConflict = errors.New("the object changed since it was read")

// ErrCorrupt is a read that the store itself found damaged: its bytes fail the checksum the store
// keeps for them.
var ErrCorrupt = errors.New("the object's bytes do not match the store's checksum")

// Store is an object store under one prefix. Keys are relative to that prefix and use "/".
type Store interface {
	// URL is the store's canonical URL, as ParseURL writes it.
	URL() string
	// Put writes an immutable object from body (size bytes). A key that already holds an object of
	// that size is left alone: keys are content-addressed, so same key and size means same bytes.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error
	// Get opens the object for reading, with its size; ErrNotFound when there is none.
	Get(ctx context.Context, key string) (io.ReadCloser, int64, error)
	// Head returns the object's size; ErrNotFound when there is none.
	Head(ctx context.Context, key string) (int64, error)
	// ReadVersioned reads a small object whole (at most limit bytes) with the version that
	// WriteIfVersion compares against; ErrNotFound when there is none.
	ReadVersioned(ctx context.Context, key string, limit int64) (data []byte, version string, err error)
	// WriteIfVersion replaces the object only if its version is still version, or creates it only
	// if it does not exist when version is ""; ErrConflict otherwise. Readers see the old object or
	// the new one, never a mix.
	WriteIfVersion(ctx context.Context, key string, data []byte, version string) error
}

// Location is a parsed store URL.
type Location struct {
	Scheme string // "s3" or "file"
	Bucket string // s3 only
	Prefix string // s3: key prefix without slashes at either end; file: the absolute directory
}

// String is the canonical URL: two URLs that name the same place have the same String.
func (l Location) String() string {
	if l.Scheme == "file" {
		return (&url.URL{Scheme: "file", Path: l.Prefix}).String()
	}
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// Overlaps reports whether one location is inside the other (or both are the same), so that keys
// written under one can be read through the other.
func (l Location) Overlaps(o Location) bool {
	if l.Scheme != o.Scheme || l.Bucket != o.Bucket {
		return false
	}
	within := func(a, b string) bool { // a is b or below it
		return a == b || b == "" || b == "/" || strings.HasPrefix(a, b+"/")
	}
	return within(l.Prefix, o.Prefix) || within(o.Prefix, l.Prefix)
}

// ParseURL checks a store URL: s3://bucket[/prefix] or file:///absolute/dir.
func ParseURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, fmt.Errorf("store URL %q: %w", raw, err)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return Location{}, fmt.Errorf("store URL %q: no user, query or fragment allowed", raw)
	}
	switch u.Scheme {
	case "s3":
		if u.Host == "" {
			return Location{}, fmt.Errorf("store URL %q: no bucket (want s3://bucket/prefix)", raw)
		}
		prefix := strings.Trim(u.Path, "/")
		if prefix != path.Clean("/" + prefix)[1:] {
			return Location{}, fmt.Errorf("store URL %q: the prefix has empty, . or .. segments", raw)
		}
		return Location{Scheme: "s3", Bucket: u.Host, Prefix: prefix}, nil
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("store URL %q: a file URL names no host (want file:///dir)", raw)
		}
		if !filepath.IsAbs(u.Path) {
			return Location{}, fmt.Errorf("store URL %q: the directory must be absolute", raw)
		}
		return Location{Scheme: "file", Prefix: filepath.Clean(u.Path)}, nil
	}
	return Location{}, fmt.Errorf("store URL %q: the scheme must be s3 or file", raw)
}

// Open returns the store a URL names: S3 (or an S3-compatible service, through the standard AWS
// environment and files) for s3://, a directory for file://.
func Open(ctx context.Context, raw string) (Store, error) {
	loc, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if loc.Scheme == "file" {
		return newFileStore(loc)
	}
	return newS3Store(ctx, loc)
}

// checkKey refuses keys that could leave the prefix: the layout only ever uses plain segments.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || path.Clean(key) != key || strings.Contains(key, "..") {
		return fmt.Errorf("object key %q is not a plain relative key", key)
	}
	return nil
}
