package mcpserver

import (
	"context"
	"errors"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
)

// Run refuses, before it opens anything, an address it must not listen on and an issuer or resource
// a token could not safely name.
func TestRunChecksConfig(t *testing.T) {
	const (
		remoteHTTP = "ctool mcp --http 127.0.0.1:8765, or add --auth-issuer and --resource, or --allow-remote behind your own authentication"
		remoteMon  = "ctool mcp --metrics 127.0.0.1:9465, or add --allow-remote (with --http) for a scraper on another machine"
	)
	auth := &AuthConfig{Issuer: "https://as.example", Resource: "https://ctool.example/mcp"}
	for _, tc := range []struct {
		name      string
		c         Config
		err, hint string // "" for a Config Run accepts
	}{
		{"stdio", Config{}, "", ""},
		{"HTTP on loopback", Config{HTTP: "127.0.0.1:8765"}, "", ""},
		{"HTTP on localhost, IPv6 loopback", Config{HTTP: "[::1]:0", Metrics: "localhost:0"}, "", ""},
		{"HTTP not host:port", Config{HTTP: "8765"}, "--http 8765: want host:port, e.g. 127.0.0.1:8765", ""},
		{"HTTP on every address", Config{HTTP: ":8765"},
			"--http :8765 is not a loopback address: anyone who can reach it could query the data and read profiles", remoteHTTP},
		{"HTTP on another address", Config{HTTP: "192.0.2.1:8765"},
			"--http 192.0.2.1:8765 is not a loopback address: anyone who can reach it could query the data and read profiles", remoteHTTP},
		{"HTTP remote, allowed", Config{HTTP: "0.0.0.0:8765", AllowRemote: true}, "", ""},
		{"HTTP remote behind auth", Config{HTTP: "0.0.0.0:8765", Auth: auth}, "", ""},
		{"metrics not host:port", Config{Metrics: "9465"}, "--metrics 9465: want host:port, e.g. 127.0.0.1:9465", ""},
		{"metrics on the HTTP address", Config{HTTP: "127.0.0.1:8765", Metrics: "127.0.0.1:8765"},
			"--metrics 127.0.0.1:8765: give it an address of its own, not the --http one", ""},
		{"metrics and HTTP on any free port", Config{HTTP: "127.0.0.1:0", Metrics: "127.0.0.1:0"}, "", ""},
		{"metrics remote", Config{Metrics: "0.0.0.0:9465"}, "--metrics 0.0.0.0:9465 is not a loopback address", remoteMon},
		{"metrics remote behind auth", Config{HTTP: "0.0.0.0:8765", Metrics: "0.0.0.0:9465", Auth: auth},
			"--metrics 0.0.0.0:9465 is not a loopback address", remoteMon},
		{"metrics remote, allowed", Config{HTTP: "0.0.0.0:8765", Metrics: "0.0.0.0:9465", AllowRemote: true}, "", ""},
		{"issuer over plain http", Config{HTTP: "127.0.0.1:0", Auth: &AuthConfig{Issuer: "http://as.example", Resource: auth.Resource}},
			`--auth-issuer: "http://as.example" is not https (plain http only on a loopback address)`, ""},
		{"issuer on loopback over http", Config{HTTP: "127.0.0.1:0", Auth: &AuthConfig{Issuer: "http://127.0.0.1:9000", Resource: auth.Resource}}, "", ""},
		{"resource not a URL", Config{HTTP: "127.0.0.1:0", Auth: &AuthConfig{Issuer: auth.Issuer, Resource: "ctool.example/mcp"}},
			`--resource "ctool.example/mcp": want this server's https URL, e.g. https://concierge.example/mcp`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.check()
			var e *fault.Error
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.err != "" && (!errors.As(err, &e) || e.Kind != fault.KindUsage || e.Message != tc.err || e.Hint != tc.hint):
				t.Errorf("%#v\nwant a usage error %q, hint %q", err, tc.err, tc.hint)
			}
		})
	}
}

// Run checks the Config first: a server refused for its address opens no database and starts no
// worker (here there is neither database nor worker command to start).
func TestRunChecksFirst(t *testing.T) {
	err := Run(context.Background(), Config{DB: "/nonexistent/ctool.duckdb", HTTP: "0.0.0.0:8765"})
	var e *fault.Error
	if !errors.As(err, &e) || e.Kind != fault.KindUsage {
		t.Errorf("Run = %v, want the usage error of the address", err)
	}
}
