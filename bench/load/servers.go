// The servers under load: ctool mcp replicas, their workers and builds, and nginx in front of two.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

type server struct {
	name, addr, url string
	proc            *benchkit.Proc
}

func startServer(ctx context.Context, name, db, addr string) (*server, error) {
	cmd := exec.CommandContext(ctx, *ctoolBin, "mcp", "--db", db, "--http", addr, "--timeout", serverTO.String(), "--drain", "30s")
	p, url, err := benchkit.StartServing(cmd, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("ctool mcp %s: %w", name, err)
	}
	addr = strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	return &server{name: name, addr: addr, url: url, proc: p}, nil
}

// drain sends SIGTERM and waits for the exit, which must be 0.
func (s *server) drain() error {
	killed, err := s.proc.Stop(syscall.SIGTERM, time.Minute)
	switch {
	case killed:
		return fmt.Errorf("replica %s did not stop within a minute of SIGTERM", s.name)
	case err != nil:
		return fmt.Errorf("replica %s after SIGTERM: %v", s.name, err)
	}
	return nil
}

func (s *server) stop() {
	if s != nil {
		s.proc.Stop(syscall.SIGTERM, time.Minute)
	}
}

// killWorker kills one of the server's query workers (SIGKILL), as an operator or the OOM killer might.
func (s *server) killWorker() error {
	if pids := benchkit.Descendants(s.proc.Cmd.Process.Pid); len(pids) > 1 {
		return syscall.Kill(pids[1], syscall.SIGKILL)
	}
	return errors.New("no worker process found")
}

func ingest(ctx context.Context, input, db string) error {
	out, err := exec.CommandContext(ctx, *ctoolBin, "ingest", "--input", input, "--db", db).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctool ingest: %v\n%s", err, out)
	}
	return nil
}

// copyInput copies the sample input; changed renames one product, so that its ingest is a new build.
func copyInput(from, to string, changed bool) error {
	return benchkit.CopyFiles(from, to, nil, func(name string, b []byte) []byte {
		if changed && name == "filtered_product_data.csv" {
			b = bytes.Replace(b, []byte("手巻き寿司セット 天然本鮪入り"), []byte("手巻き寿司セット 天然本鮪入り（特上）"), 1)
		}
		return b
	})
}
