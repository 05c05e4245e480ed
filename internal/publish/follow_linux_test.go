package publish

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A cache on a full disk: the download fails as a disk failure, the partial file goes, and the
// current build stays. The disk is a real 1 MiB tmpfs, which needs root.
func TestCacheDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a size-limited tmpfs needs root to mount; the full-disk case is not run")
	}
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			if err := os.Mkdir(cache, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("tmpfs", cache, "tmpfs", 0, "size=1m"); err != nil {
				t.Skipf("cannot mount a tmpfs here (%v); the full-disk case is not run", err)
			}
			t.Cleanup(func() { syscall.Unmount(cache, syscall.MNT_DETACH) })

			st := b.start(t)("builds")
			a, _ := publishNew(t, st, "a", 200_000)
			var swaps []Manifest
			f := newFollower(t, st, cache, &swaps)
			if _, err := f.Start(ctx); err != nil {
				t.Fatal(err)
			}
			publishNew(t, st, "b", 2<<20) // twice the disk
			err := f.CheckOnce(ctx)
			wantKind(t, err, FailDisk)
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space") {
				t.Errorf("error = %v, want ENOSPC", err)
			}
			s := f.Status()
			if s.Current.SHA256 != a.SHA256 || s.State != StateFailing || len(swaps) != 0 {
				t.Fatalf("status = %+v, want a kept", s)
			}
			wantCache(t, cache, a.SHA256) // the partial file is gone, build a is whole
			if err := checkCachedFile(cachedBuildPath(cache, a.SHA256), a); err != nil {
				t.Errorf("build a after the failed download: %v", err)
			}
		})
	}
}
