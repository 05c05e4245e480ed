//go:build unix

package publish

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on path, creating it. The kernel drops the lock when the
// process dies, so a killed writer never leaves the store locked; on Linux NFS clients flock is
// carried out as a POSIX lock on the server, so it holds between machines too.
func lockFile(path string, wait bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil // closing the last descriptor releases the lock
}
