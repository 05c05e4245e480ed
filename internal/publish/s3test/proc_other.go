//go:build !linux

package s3test

import "os/exec"

// setDeathSignal has no portable form: elsewhere the test's cleanup alone stops the server.
func setDeathSignal(cmd *exec.Cmd) {}
