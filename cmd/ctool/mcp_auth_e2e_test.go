package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a token to every request of the SDK's HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The real binary with --auth-issuer: discovery from an issuer on loopback at start, the SDK's client
// with a token reading its own profile, a request without one refused, and the log naming the
// subject only by its hash. (conformance/auth.sh runs the same against oidc-provider.)
func TestMCPAuth(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	iss := httptest.NewServer(mux)
	defer iss.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	})
	var removed atomic.Bool         // the issuer has taken k1 out of its key set
	fetched := make(chan bool, 100) // each key set fetch, and whether k1 was out
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Use: "sig"}}}
		if removed.Load() {
			set.Keys = nil
		}
		json.NewEncoder(w).Encode(set)
		fetched <- removed.Load()
	})
	const resource = "https://concierge.test/mcp"
	mint := func(typ string) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)).WithHeader("kid", "k1"))
		if err != nil {
			t.Fatal(err)
		}
		token, err := jwt.Signed(signer).Claims(map[string]any{"iss": iss.URL, "aud": resource, "sub": "visitor-7",
			"profile_id": "user_family_weekend", "exp": time.Now().Add(time.Hour).Unix(), "scope": "ctool:search ctool:profile"}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	token := mint("at+jwt")

	s := startMCPHTTP(t, "--db", db, "--auth-issuer", iss.URL, "--resource", resource, "--profile-claim", "profile_id", "--jwks-refresh", "10s")
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ctool-e2e", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_user_profile", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.StructuredContent.(map[string]any); res.IsError || got["profile_id"] != "user_family_weekend" {
		t.Errorf("get_user_profile {}: %v", res.Content[0].(*mcp.TextContent).Text)
	}

	resp, err := http.Post(s.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="https://concierge.test/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// A token the issuer signed but typed JWT, as an ID token is: refused as a malformed one is, and
	// logged as the type.
	req, _ := http.NewRequest("POST", s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+mint("JWT"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(body), "malformed") {
		t.Errorf("typ JWT: %d %s", resp.StatusCode, body)
	}
	// The log is read from the server's stderr as it comes.
	log := s.stderr.waitFor(t, "the refusal of typ JWT logged", func(s string) bool { return strings.Contains(s, `"refusal":"type"`) })
	if !strings.Contains(log, `"refusal":"missing"`) || !strings.Contains(log, `"refusal":"type"`) || !strings.Contains(log, `"subject":"`) || strings.Contains(log, "visitor-7") {
		t.Errorf("log:\n%s", log)
	}

	// With --allow-typ-jwt the same token is served.
	legacy := startMCPHTTP(t, "--db", db, "--auth-issuer", iss.URL, "--resource", resource, "--profile-claim", "profile_id", "--allow-typ-jwt")
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "ctool-e2e", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: legacy.url, HTTPClient: &http.Client{Transport: bearer{mint("JWT")}}}, nil)
	if err != nil {
		t.Fatalf("--allow-typ-jwt, typ JWT: %v", err)
	}
	defer cs2.Close()
	if tools, err := cs2.ListTools(ctx, nil); err != nil || len(tools.Tools) != 4 {
		t.Errorf("--allow-typ-jwt, typ JWT: tools/list: %v %v", tools, err)
	}

	// The issuer removes k1: within --jwks-refresh 10s the server fetches its key set again, and the
	// token it accepted (and keeps verified) is refused from then on.
	removed.Store(true)
	for deadline := time.After(mcpWait); ; {
		select {
		case out := <-fetched:
			if !out {
				continue
			}
		case <-deadline:
			t.Fatalf("no key set fetch within %v of k1's removal", mcpWait)
		}
		break
	}
	// The fetch is answered; the server applies it as it reads the answer. The bound is a hang guard.
	var status int
	for deadline := time.Now().Add(mcpWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("POST", s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if status = resp.StatusCode; status == 401 {
			break
		}
	}
	if status != 401 {
		t.Errorf("a removed key's token after the key set was fetched again: HTTP %d, want 401", status)
	}
}

// An issuer whose keys cannot be found stops the server at start, exit 2, with a Try: line naming what
// to check: the URL to fetch when nothing answers, the issuer the metadata names when it names another.
func TestMCPAuthIssuerUnusable(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + ln.Addr().String()
	ln.Close()
	mux := http.NewServeMux()
	other := httptest.NewServer(mux)
	defer other.Close()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": other.URL + "/", "jwks_uri": other.URL + "/jwks"})
	})
	refused := func(u string) string {
		return fmt.Sprintf(`Get "%s": dial tcp %s: connect: connection refused`, u, strings.TrimPrefix(unreachable, "http://"))
	}
	for _, tc := range []struct {
		name, issuer, stderr string
	}{
		{"unreachable", unreachable,
			"ctool: --auth-issuer " + unreachable + ": no authorization server metadata for this issuer: " +
				refused(unreachable+"/.well-known/oauth-authorization-server") + "; " + refused(unreachable+"/.well-known/openid-configuration") + "\n" +
				"Try: curl -s " + unreachable + "/.well-known/openid-configuration | jq .issuer from this machine: --auth-issuer is that value, exactly as the tokens' iss has it\n"},
		{"another issuer named", other.URL,
			"ctool: --auth-issuer " + other.URL + ": no authorization server metadata for this issuer: " +
				other.URL + "/.well-known/oauth-authorization-server: 404 Not Found; " +
				other.URL + `/.well-known/openid-configuration names issuer "` + other.URL + `/"` + "\n" +
				"Try: --auth-issuer " + other.URL + "/, the issuer its metadata names, if its tokens are the ones to accept (iss must match exactly)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := mcpCommand(t, nil, "--db", db, "--http", "127.0.0.1:0", "--auth-issuer", tc.issuer, "--resource", "https://concierge.test/mcp")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || stdout.Len() != 0 || stderr.String() != tc.stderr {
				t.Errorf("ctool mcp --auth-issuer %s: %v, stdout %q, stderr\n%s\nwant exit 2 and\n%s", tc.issuer, err, stdout.String(), stderr.String(), tc.stderr)
			}
		})
	}
}
