package s3test

import (
	"os/exec"
	"syscall"
)

// setDeathSignal kills the server with the test binary, even when that is killed itself.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
