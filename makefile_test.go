package ctool_test

import (
	"os/exec"
	"strings"
	"testing"
)

// make install PREFIX=~/.local installs under the home directory also when the shell that ran make left
// the ~ as it is (sh does, for an argument), as the README tells people to type it.
func TestInstallPrefixTilde(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	home := t.TempDir()
	cmd := exec.Command("make", "-n", "install", "PREFIX=~/.local", "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n install: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "install -d '"+home+"/.local/bin'") || strings.Contains(string(out), "'~") {
		t.Errorf("make install PREFIX=~/.local does not install under %s/.local:\n%s", home, out)
	}
}
