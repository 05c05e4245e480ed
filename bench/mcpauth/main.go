// Command mcpauth is the benchmark of `ctool mcp --auth-issuer`: the latency of a tool call over HTTP
// with a bearer token against the same call to a server without auth. An issuer in this process, on
// loopback, mints one token; the server verifies it on the first call and finds it in its cache on the
// others, which is what the figures time. Calls alternate between the two servers, one at a time, on
// kept-alive connections, so load on the machine falls on both alike. It prints a markdown table of
// the median (p50) and 99th percentile (p99) of each.
//
//	mcpauth -ctool bin/ctool -db DB [-calls 2000] [-warmup 50]
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const resource = "http://127.0.0.1/mcp" // the audience; the URL the server really has does not matter here

func main() {
	ctool := flag.String("ctool", "bin/ctool", "the ctool binary")
	db := flag.String("db", "", "a database built from input/")
	n := flag.Int("calls", 2000, "timed calls per tool and server")
	warmup := flag.Int("warmup", 50, "untimed calls per tool and server first")
	flag.Parse()
	if err := run(*ctool, *db, *n, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "mcpauth:", err)
		os.Exit(1)
	}
}

type call struct {
	label, tool string
	args        map[string]string
}

var calls = []call{
	{"search_stores", "search_stores", map[string]string{"sql_query": "SELECT store_name FROM stores WHERE category = 'cafe'"}},
	{"get_user_profile", "get_user_profile", map[string]string{"profile_id": "user_criollo_heavy"}},
	{"ping (no tool: the HTTP and auth path alone)", "", nil},
}

func run(ctool, db string, n, warmup int) error {
	issuer, token, err := startIssuer()
	if err != nil {
		return err
	}
	plain, err := startServer(ctool, "--db", db, "--http", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer plain.stop()
	authed, err := startServer(ctool, "--db", db, "--http", "127.0.0.1:0", "--auth-issuer", issuer, "--resource", resource,
		"--calls-per-second", "1000000", "--max-calls-per-user", "64")
	if err != nil {
		return err
	}
	defer authed.stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

	fmt.Println("| call | p50 without auth | p50 with auth | difference | p99 without | p99 with |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range calls {
		body := request(c)
		var off, on []time.Duration
		for i := range warmup + n {
			for _, s := range []struct {
				url, token string
				into       *[]time.Duration
			}{{plain.url, "", &off}, {authed.url, token, &on}} {
				start := time.Now()
				if err := post(client, s.url, s.token, body); err != nil {
					return fmt.Errorf("%s: %w", c.label, err)
				}
				if i >= warmup {
					*s.into = append(*s.into, time.Since(start))
				}
			}
		}
		p50off, p50on := pct(off, 50), pct(on, 50)
		fmt.Printf("| %s | %s | %s | %+.3f ms | %s | %s |\n", c.label, ms(p50off), ms(p50on),
			float64(p50on-p50off)/float64(time.Millisecond), ms(pct(off, 99)), ms(pct(on, 99)))
	}
	return nil
}

// startIssuer serves discovery and a JWKS of one ES256 key on loopback and mints a token valid for
// an hour with both scopes, whose sub is the profile the calls read.
func startIssuer() (issuer, token string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	issuer = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": issuer, "jwks_uri": issuer + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	go http.Serve(ln, mux)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	token, err = jwt.Signed(signer).Claims(map[string]any{"iss": issuer, "aud": resource, "sub": "user_criollo_heavy",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": "ctool:search ctool:profile"}).Serialize()
	return issuer, token, err
}

type server struct {
	cmd *exec.Cmd
	url string
}

// startServer runs ctool mcp and reads the URL it serves from its first log line.
func startServer(ctool string, args ...string) (*server, error) {
	cmd := exec.Command(ctool, append([]string{"mcp"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var start struct{ Serving string }
		if json.Unmarshal(lines.Bytes(), &start) == nil && start.Serving != "" {
			s.url = start.Serving
			break
		}
		fmt.Fprintln(os.Stderr, lines.Text())
	}
	if s.url == "" {
		s.stop()
		return nil, errors.New("ctool mcp did not start: " + strings.Join(args, " "))
	}
	go io.Copy(io.Discard, stderr)
	return s, nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
	}
}

func request(c call) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}
	if c.tool != "" {
		msg["method"], msg["params"] = "tools/call", map[string]any{"name": c.tool, "arguments": c.args}
	}
	b, _ := json.Marshal(msg)
	return b
}

func post(client *http.Client, url, token string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"isError":true`)) {
		return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
