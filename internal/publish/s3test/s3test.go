// Package s3test runs a real S3-compatible server for tests: versitygw with its posix backend,
// built once from its Go module into the user's cache and started on 127.0.0.1.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Version is the versitygw release the tests run against; its posix backend checks If-Match and
// If-None-Match on PutObject under a per-key lock, which is what the publisher relies on.
const Version = "v1.8.0"

const (
	module    = "github.com/versity/versitygw/cmd/versitygw@" + Version
	accessKey = "ctooltest"
	secretKey = "ctooltest-secret-key"
	region    = "us-east-1"
)

// Server is one running versitygw.
type Server struct {
	Endpoint string // http://127.0.0.1:port
	Bucket   string
	Root     string // the posix backend's directory: an object is at Root/Bucket/key

	t    testing.TB
	bin  string
	addr string
	log  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start builds versitygw if needed, starts it with a fresh directory and bucket, and points the
// AWS environment of the test at it (so the test must not be parallel). It skips the test only
// when versitygw cannot be built for want of the network; any other failure fails it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binary(t)
	s := &Server{t: t, bin: bin, Bucket: "ctool-test", Root: t.TempDir()}
	s.log = filepath.Join(t.TempDir(), "versitygw.log")
	for _, kv := range [][2]string{
		{"AWS_ACCESS_KEY_ID", accessKey}, {"AWS_SECRET_ACCESS_KEY", secretKey},
		{"AWS_REGION", region}, {"AWS_SESSION_TOKEN", ""}, {"AWS_PROFILE", ""},
		{"AWS_CONFIG_FILE", filepath.Join(s.Root, "no-aws-config")},
		{"AWS_SHARED_CREDENTIALS_FILE", filepath.Join(s.Root, "no-aws-credentials")},
		{"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_ENDPOINT_URL_S3", ""},
		{"AWS_MAX_ATTEMPTS", "2"}, // a stopped server must fail a check quickly
	} {
		t.Setenv(kv[0], kv[1])
	}
	var err error
	for range 3 { // a free port can be taken between choosing it and binding it
		if s.addr, err = freeAddr(); err != nil {
			t.Fatal(err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("versitygw did not start: %v\n%s", err, s.Log())
	}
	s.Endpoint = "http://" + s.addr
	t.Setenv("AWS_ENDPOINT_URL", s.Endpoint)
	t.Cleanup(s.Stop)
	s.createBucket()
	return s
}

// URL is the store URL of a prefix in the server's bucket.
func (s *Server) URL(prefix string) string { return "s3://" + s.Bucket + "/" + prefix }

// ObjectPath is the file that holds an object in the posix backend, for tests that damage it.
func (s *Server) ObjectPath(prefix, key string) string {
	return filepath.Join(s.Root, s.Bucket, filepath.FromSlash(prefix), filepath.FromSlash(key))
}

// Log is what the server printed so far.
func (s *Server) Log() string {
	data, _ := os.ReadFile(s.log)
	return string(data)
}

// Stop kills the server and waits for it; the data stays for Restart.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-done
}

// Restart starts the server again on the same address and data.
func (s *Server) Restart() {
	s.t.Helper()
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond) // the old socket may linger a moment
	}
	s.t.Fatalf("versitygw did not restart: %v\n%s", err, s.Log())
}

func (s *Server) start() error {
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, "--access", accessKey, "--secret", secretKey, "--region", region,
		"--port", s.addr, "--quiet", "posix", s.Root)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = os.Environ()
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case <-done:
			return errors.New("versitygw exited")
		default:
		}
		if resp, err := http.Get("http://" + s.addr + "/"); err == nil {
			resp.Body.Close()
			s.mu.Lock()
			s.cmd, s.done = cmd, done
			s.mu.Unlock()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-done
	return errors.New("versitygw did not answer within 30 s")
}

func (s *Server) createBucket() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		s.t.Fatalf("create bucket: %v\n%s", err, s.Log())
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
	buildSkip bool
)

// binary returns the cached versitygw, building it the first time. Each build goes to a directory
// of its own and is renamed into place, so concurrent test binaries never see half a file.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { buildBin, buildSkip, buildErr = build() })
	if buildSkip {
		t.Skipf("versitygw %s cannot be built here (no network?): %v", Version, buildErr)
	}
	if buildErr != nil {
		t.Fatalf("building versitygw %s: %v", Version, buildErr)
	}
	return buildBin
}

func build() (bin string, skip bool, err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", false, err
	}
	dir := filepath.Join(cache, "ctool-versitygw", Version)
	bin = filepath.Join(dir, "versitygw")
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, false, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", true, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	// go install pkg@version builds outside any module: versitygw never enters ctool's go.mod.
	cmd := exec.Command(goTool, "install", "-trimpath", module)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", offline(string(out)), fmt.Errorf("go install %s: %v\n%s", module, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "versitygw"), bin); err != nil {
		return "", false, err
	}
	return bin, false, nil
}

// offline reports whether go failed for want of the module proxy rather than for a real error.
func offline(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "i/o timeout", "connection refused",
		"network is unreachable", "TLS handshake", "GOPROXY=off"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}
