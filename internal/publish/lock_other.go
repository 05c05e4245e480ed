//go:build !unix

package publish

import "errors"

// lockFile needs flock(2): the file:// store and the follower's cache lock are Unix only.
func lockFile(path string, wait bool) (unlock func(), err error) {
	return nil, errors.New("file locks need a Unix system")
}
