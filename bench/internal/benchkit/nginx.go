package benchkit

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
)

// FreeAddr is a loopback address with a port free now, for a server that must listen on it.
func FreeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer ln.Close()
	return ln.Addr().String()
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

// Nginx is Debian's nginx run as a process of the benchmark, in front of two replicas.
type Nginx struct {
	URL  string // the replicas' /mcp through nginx
	proc *Proc
}

// StartNginx writes a configuration under tmp/nginx that proxies /mcp to the replicas at a and b,
// starts nginx with it and waits until it listens.
func StartNginx(ctx context.Context, tmp, a, b string) (*Nginx, error) {
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
	listen := FreeAddr()
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
	p, err := Start(cmd)
	if err != nil {
		return nil, err
	}
	n := &Nginx{URL: "http://" + listen + "/mcp", proc: p}
	for range 100 {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			return n, nil
		}
		select {
		case <-p.Exited():
			el, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx exited: %v\n%s%s", p.Err(), out.String(), el)
		case <-time.After(100 * time.Millisecond):
		}
	}
	n.Stop()
	return nil, errors.New("nginx did not listen")
}

// Stop stops nginx gracefully.
func (n *Nginx) Stop() { n.proc.Stop(syscall.SIGQUIT, 10*time.Second) }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
