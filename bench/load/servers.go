// The servers under load: ctool mcp replicas, their workers and builds, and nginx in front of two.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

// freeAddr is a loopback address with a port free now, for a replica that must come back on it.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer ln.Close()
	return ln.Addr().String()
}

type nginx struct {
	url  string
	proc *benchkit.Proc
}

// nginxConf proxies /mcp to the replicas. A replica that is draining answers 503 and one that is
// restarting refuses the connection: either way nginx passes the call to the other (the tools are
// read-only, so a POST may be retried).
const nginxConf = `{{user}}worker_processes 1;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path {{dir}}/body;
	proxy_temp_path {{dir}}/proxy;
	fastcgi_temp_path {{dir}}/fastcgi;
	uwsgi_temp_path {{dir}}/uwsgi;
	scgi_temp_path {{dir}}/scgi;
	upstream ctool {
		server {{a}} max_fails=0;
		server {{b}} max_fails=0;
		keepalive 64;
	}
	server {
		listen {{listen}};
		location = /mcp {
			proxy_pass http://ctool;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $http_host;
			proxy_next_upstream error timeout http_502 http_503 non_idempotent;
			proxy_next_upstream_tries 3;
			proxy_read_timeout 60s;
		}
	}
}
`

func startNginx(ctx context.Context, tmp, a, b string) (*nginx, error) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin = "/usr/sbin/nginx"; !fileExists(bin) {
			return nil, errors.New("nginx is not installed (apt-get install nginx)")
		}
	}
	dir := filepath.Join(tmp, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	listen := freeAddr()
	user := ""
	if os.Geteuid() == 0 {
		user = "user root root;\n" // the current user, not nginx's default
	}
	conf := strings.NewReplacer("{{user}}", user, "{{dir}}", dir, "{{a}}", a, "{{b}}", b, "{{listen}}", listen).Replace(nginxConf)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := benchkit.Start(cmd)
	if err != nil {
		return nil, err
	}
	n := &nginx{url: "http://" + listen + "/mcp", proc: p}
	for range 100 {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			say("nginx on %s in front of %s and %s", listen, a, b)
			return n, nil
		}
		select {
		case <-p.Exited():
			el, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx exited: %v\n%s%s", p.Err(), out.String(), el)
		case <-time.After(100 * time.Millisecond):
		}
	}
	n.stop()
	return nil, errors.New("nginx did not listen")
}

func (n *nginx) stop() { n.proc.Stop(syscall.SIGQUIT, 10*time.Second) }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
