package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// partialPrefix starts the name of every file still being written, in the cache and in a file://
// store. Nothing ever opens such a file by name except to remove it.
const partialPrefix = ".partial-"

// errLocked is lockFile's answer, without waiting, for a lock another holder has.
var errLocked = errors.New("locked by another process")

// fileStore keeps the same layout as S3 in a directory (a shared NFS mount, or a test's).
// Objects appear by rename(2), so a reader sees a whole object or none.
type fileStore struct {
	loc Location
}

func newFileStore(loc Location) (*fileStore, error) {
	info, err := os.Stat(loc.Prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", loc)
	}
	return &fileStore{loc: loc}, nil
}

func (s *fileStore) URL() string { return s.loc.String() }

func (s *fileStore) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.loc.Prefix, filepath.FromSlash(key)), nil
}

// writablePath is path for writes: the store's directory must still be there, or a missing mount
// would be silently recreated on the local disk.
func (s *fileStore) writablePath(op, key string) (string, error) {
	p, err := s.path(key)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(s.loc.Prefix); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s: %s %s: the store's directory is gone", s.loc, op, key)
	}
	return p, nil
}

func (s *fileStore) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	p, err := s.writablePath("put", key)
	if err != nil {
		return err
	}
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Size() == size {
		return nil
	}
	err = writeAtomic(p, func(w io.Writer) error {
		n, err := io.Copy(w, io.LimitReader(body, size+1))
		if err == nil && n != size {
			err = fmt.Errorf("the source has %d bytes, not %d", n, size)
		}
		return err
	})
	return s.wrap("put", key, err)
}

func (s *fileStore) Get(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, s.wrap("get", key, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, 0, s.wrap("get", key, err)
	}
	return f, info.Size(), nil
}

func (s *fileStore) Head(ctx context.Context, key string) (int64, error) {
	p, err := s.path(key)
	if err != nil {
		return 0, err
	}
	info, err := os.Stat(p)
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		return 0, s.wrap("head", key, err)
	}
	return info.Size(), nil
}

// ReadVersioned's version is the content's SHA-256: the pointer's sequence number makes every
// pointer's content distinct, so equal content means no write in between.
func (s *fileStore) ReadVersioned(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	f, _, err := s.Get(ctx, key)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := readLimited(f, limit)
	if err != nil {
		return nil, "", s.wrap("get", key, err)
	}
	return data, contentVersion(data), nil
}

// WriteIfVersion compares and swaps under a lock file beside the object; the swap itself is a
// rename, so readers, who take no lock, never wait and never see half a pointer.
func (s *fileStore) WriteIfVersion(ctx context.Context, key string, data []byte, version string) error {
	p, err := s.writablePath("put", key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return s.wrap("put", key, err)
	}
	unlock, err := lockFile(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".lock"), true)
	if err != nil {
		return s.wrap("lock", key, err)
	}
	defer unlock()
	current := ""
	if old, err := os.ReadFile(p); err == nil {
		current = contentVersion(old)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return s.wrap("put", key, err)
	}
	if current != version {
		return fmt.Errorf("%s: put %s: %w", s.loc, key, ErrConflict)
	}
	err = writeAtomic(p, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
	return s.wrap("put", key, err)
}

func (s *fileStore) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Without its directory (an NFS mount gone, say) the store is unreachable, not empty.
		if _, serr := os.Stat(s.loc.Prefix); serr != nil {
			return fmt.Errorf("%s: %s %s: the store's directory is gone: %w", s.loc, op, key, serr)
		}
		return fmt.Errorf("%s: %s %s: %w", s.loc, op, key, ErrNotFound)
	}
	return fmt.Errorf("%s: %s %s: %w", s.loc, op, key, err)
}

func contentVersion(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// writeAtomic writes path through a temporary file beside it: written, synced, renamed, and the
// directory synced, so after a crash the name holds the old bytes or the new, whole.
func writeAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, partialPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	return err
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
