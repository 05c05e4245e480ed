package database

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// Live serves many calls from one process: it keeps the current build of a path open, and when an
// ingest puts a new build in place it opens that one for the calls that start from then on, while
// calls already running finish on the build they started with. The old build is closed when its
// last call releases it.
type Live struct {
	path string
	opts []Option

	mu      sync.Mutex
	current *lease
	seen    fileID // the file at path when current was opened
	closed  bool
}

// lease counts the calls using one build; a retired build closes when the count drops to zero.
type lease struct {
	build   *Build
	users   int
	retired bool
}

// fileID tells whether the file at a path was replaced: ingest renames a new file over it.
type fileID struct {
	dev, ino uint64
	size     int64
	mod      time.Time
}

func statID(path string) (fileID, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{size: info.Size(), mod: info.ModTime()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id, nil
}

// NewLive returns a Live for the main database at path, each build opened with opts; nothing is opened
// until the first Acquire.
func NewLive(path string, opts ...Option) *Live { return &Live{path: path, opts: opts} }

// Acquire returns the current build, opening it, or a newer one, as needed. Call release when done
// with it; the build stays open until then even if a newer one replaces it.
func (l *Live) Acquire(ctx context.Context) (b *Build, release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, nil, errors.New("database: Acquire after Close")
	}
	id, statErr := statID(l.path)
	if l.current == nil || statErr != nil || id != l.seen {
		b, err := Open(ctx, l.path, l.opts...)
		if err != nil {
			return nil, nil, err
		}
		l.retire()
		l.current, l.seen = &lease{build: b}, id
	}
	cur := l.current
	cur.users++
	var once sync.Once
	return cur.build, func() { once.Do(func() { l.release(cur) }) }, nil
}

func (l *Live) release(le *lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	le.users--
	if le.retired && le.users == 0 {
		le.build.Close()
	}
}

// retire stops handing out the current build; it closes once no call uses it. l.mu is held.
func (l *Live) retire() {
	if l.current == nil {
		return
	}
	l.current.retired = true
	if l.current.users == 0 {
		l.current.build.Close()
	}
	l.current = nil
}

// Close closes the current build once its calls are done; Acquire fails from then on.
func (l *Live) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.retire()
}
