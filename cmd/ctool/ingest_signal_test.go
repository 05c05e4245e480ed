package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
)

// ctool ingest interrupted (SIGINT, as Ctrl-C sends it, or SIGTERM) while it builds cancels the build:
// it says so, exits 1, and leaves the directory as it found it, with no temporary file.
func TestIngestInterrupted(t *testing.T) {
	t.Parallel()
	input := t.TempDir()
	ingesttest.CopyDir(t, ingesttest.SampleInput(t), input, func(name string, b []byte) []byte {
		if name != "filtered_product_data.csv" {
			return b
		}
		// Enough products that the load takes a while: the signal comes while it runs.
		var more bytes.Buffer
		more.Write(b)
		for i := range 300_000 {
			fmt.Fprintf(&more, "STR-0001,麻布台ヒルズマーケット,詰め合わせ No.%d,\"旬の詰め合わせ。%d円（税込）\",ギフト\n", i, 500+i%1000)
		}
		return more.Bytes()
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			cmd := exec.Command("ctool", "ingest", "--input", input, "--db", filepath.Join(dir, "ctool.duckdb"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the build's temporary files exist.
			deadline := time.Now().Add(60 * time.Second)
			for {
				if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(tmp) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no temporary file appeared")
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("ctool ingest ended with %v, want status 1 (the signal must come while it builds)\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
			}
			if got, want := stderr.String(), "ctool: ingest was interrupted; the database was not changed\n"; got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Errorf("the interrupted ingest left %s", strings.Join(left, ", "))
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the directory the ingest made is still there: %v", err)
			}
		})
	}
}
