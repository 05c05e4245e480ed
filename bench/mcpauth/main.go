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
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
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
		p50off, p50on := benchkit.Percentile(off, 50), benchkit.Percentile(on, 50)
		fmt.Printf("| %s | %s | %s | %+.3f ms | %s | %s |\n", c.label, ms(p50off), ms(p50on),
			float64(p50on-p50off)/float64(time.Millisecond), ms(benchkit.Percentile(off, 99)), ms(benchkit.Percentile(on, 99)))
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
	proc *benchkit.Proc
	url  string
}

// startServer runs ctool mcp and reads the URL it serves from its log.
func startServer(ctool string, args ...string) (*server, error) {
	p, url, err := benchkit.StartServing(exec.Command(ctool, append([]string{"mcp"}, args...)...), time.Minute)
	if err != nil {
		return nil, fmt.Errorf("ctool mcp did not start: %s: %w", strings.Join(args, " "), err)
	}
	return &server{p, url}, nil
}

func (s *server) stop() { s.proc.Stop(os.Interrupt, 10*time.Second) }

func request(c call) []byte {
	if c.tool == "" {
		return benchkit.Encode(1, "ping", nil)
	}
	return benchkit.Encode(1, "tools/call", benchkit.ToolCall(c.tool, c.args))
}

func post(client *http.Client, url, token string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := benchkit.HTTP{URL: url, Client: client, Token: token}
	b, err := c.Send(ctx, body)
	if err == nil && bytes.Contains(b, []byte(`"isError":true`)) {
		err = fmt.Errorf("a tool error: %.200s", b)
	}
	return err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
