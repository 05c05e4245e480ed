package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/mcpserver"
	"github.com/azabudai/ctool/internal/sites"
	"github.com/azabudai/ctool/query"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/urfave/cli/v2"
)

func newMCPCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the four agent tools to MCP clients from one open database (stdio, or HTTP)",
		UsageText: "ctool mcp [--db PATH] [--http ADDR [--allow-remote] [--drain D]] [--metrics ADDR] [--timeout D] [--profile-id ID]\n" +
			"   ctool mcp --http ADDR --auth-issuer URL --resource URL [--profile-claim NAME] [--max-calls-per-user N] [--jwks-refresh D] [--allow-typ-jwt] [--drain D] [--metrics ADDR]\n" +
			"   ctool mcp --follow URL [--follow-interval D] [--cache DIR] [--http ADDR ...]\n" +
			"   ctool mcp --http ADDR --site NAME=URL|PATH [--site NAME=URL|PATH ...] [--follow-interval D] [--cache DIR] ...",
		Description: "Serves search_events, search_stores, search_products and get_user_profile over the Model Context\n" +
			"Protocol: the descriptions and input schemas of 'ctool tools', the guard, row cap and JSON answers of\n" +
			"'ctool query --format json' and every rule of 'ctool profile'. The database is opened once, read-only;\n" +
			"a new 'ctool ingest' is picked up by the next call, while calls already running finish on the old build.\n\n" +
			"By default the server speaks on stdin and stdout (the client starts it). With --http it serves\n" +
			"streamable HTTP at http://ADDR/mcp (stateless, JSON responses) on a loopback address only, unless\n" +
			"--allow-remote or --auth-issuer is given; requests naming another Host or Origin are refused (DNS\n" +
			"rebinding).\n\n" +
			"With --auth-issuer the HTTP server is an OAuth 2.1 resource server: every request needs\n" +
			"'Authorization: Bearer <JWT access token>' from that issuer (keys found by RFC 8414 or OpenID discovery,\n" +
			"RS256, ES256 or EdDSA, exp required, typ at+jwt as RFC 9068 asks; --allow-typ-jwt also takes typ JWT or\n" +
			"none, as Auth0's default profile, Keycloak, Entra ID and Cognito mint) whose aud holds the --resource URL.\n" +
			"The issuer's key set is fetched again every --jwks-refresh (sooner if its Cache-Control max-age says so,\n" +
			"never under 10s) and when a token names a key ctool does not hold (at most once every 10s), so a key the\n" +
			"issuer removes stops working within --jwks-refresh; a failed fetch keeps the keys and is logged.\n" +
			"Scope tokens are separated by U+0020 only. ctool:search grants the three search tools, ctool:profile\n" +
			"get_user_profile, which then returns only the caller's own profile (the id in --profile-claim; any\n" +
			"other id is not found). Without a valid token: 401 and WWW-Authenticate naming\n" +
			"the metadata at /.well-known/oauth-protected-resource/mcp; without the tool's scope: 403; past\n" +
			"--max-calls-per-user calls in flight or --calls-per-second: 429 with Retry-After. Without\n" +
			"--auth-issuer, --allow-remote serves every profile to anyone who reaches the port (a warning says so).\n" +
			"NARRATIVE_DATA_FILE chooses the profiles, as for 'ctool profile'. Each call writes one JSON line on\n" +
			"stderr: {\"time\", \"tool\", \"ms\", \"rows\", \"truncated\"} (\"found\" for get_user_profile), \"refusal\"\n" +
			"with the error's kind when it failed, and with auth \"subject\" (a keyed hash, never the id) and, for a\n" +
			"refused request, the reason: missing, expired, audience, signature, type, scope, rate or batch.\n\n" +
			"Stops on SIGINT or SIGTERM: over HTTP the calls in flight finish within --drain while new calls are\n" +
			"answered 503 with Retry-After; a second signal stops at once. On stdio it stops when stdin closes,\n" +
			"after answering every request already read. --metrics ADDR serves /healthz, /readyz (503 until the\n" +
			"build is open and the workers are warm, and while draining) and /metrics (Prometheus) on a listener\n" +
			"of its own; docs/mcp.md, \"Operating ctool mcp\", lists the metrics.\n\n" +
			"With --follow URL the build comes from an object store ('ctool publish URL' puts it there): at start\n" +
			"the build latest names, downloaded into --cache, checked (its sha256, then opened with its schema\n" +
			"version) and served; if the store does not answer, the newest build of the cache; with neither, exit 3.\n" +
			"Every --follow-interval the server reads latest again; a new build is downloaded beside the one served,\n" +
			"checked, and swapped in: calls in flight finish on the old build, the next calls read the new one. A\n" +
			"failed check keeps the build served, is logged once per change ({\"follow\": \"failing\", \"kind\", \"error\"}),\n" +
			"counted in ctool_follow_failures_total and shown in /healthz (JSON then: each build, its age, the last\n" +
			"error). A followed build has no profiles (they are never published with builds): get_user_profile answers\n" +
			"that there are none. With --site (repeated), each site is served at /mcp/NAME from its own build, a store\n" +
			"to follow or a build file; with --auth-issuer each is a protected resource of its own, its resource\n" +
			"--resource + /mcp/NAME (--resource is then the server's base URL)." +
			fmt.Sprintf("\n\nEach search query runs in a worker process (the same binary), %d kept warm and at most %d at once;\n"+
				"a query that crashes its worker, runs past --timeout and a %s grace, or runs out of memory ends that\n"+
				"worker, the call gets an error of kind crashed, timeout or too_large, and a fresh worker takes its place.\n"+
				"Past %d waiting calls a call is answered busy at once. These kinds reach the client in the call's\n"+
				"result; the server's own exit status is one of:", mcpserver.Workers, mcpserver.MaxWorkers, query.WorkerGrace, mcpserver.WorkerQueue) +
			exitStatus("the server stopped when asked", fault.KindUsage, fault.KindNoDatabase, fault.KindIO, fault.KindInternal),
		Flags: append([]cli.Flag{
			dbFlag(),
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (host:port, e.g. 127.0.0.1:8765) instead of stdio"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --http listen on an address other machines can reach"},
			&cli.DurationFlag{Name: "timeout", Value: query.DefaultTimeout, Usage: "stop each call after `D` (at most 1m)"},
			&cli.DurationFlag{Name: "drain", Value: mcpserver.DefaultDrain, Usage: "on SIGTERM, let --http calls in flight finish for up to `D`"},
			&cli.StringFlag{Name: "memory", Usage: "keep the server and its query workers within about `SIZE` resident (KiB, MiB, GiB; 0 for no bound): past it, calls wait for a busy worker rather than start another (default: 250MiB a core)"},
			&cli.StringFlag{Name: "metrics", Usage: "serve /healthz, /readyz and /metrics on `ADDR` (host:port), apart from --http"},
			&cli.StringFlag{Name: "profile-id", Usage: "get_user_profile returns only profile `ID` (every other id is not found)"},
			&cli.StringFlag{Name: "auth-issuer", Usage: "with --http: accept only bearer tokens from the OAuth issuer at `URL` (https, or http on loopback)"},
			&cli.StringFlag{Name: "resource", Usage: "with --auth-issuer: this server's `URL`, which each token's audience must hold"},
			&cli.StringFlag{Name: "profile-claim", Value: "sub", Usage: "with --auth-issuer: the token claim `NAME` holding the caller's profile id"},
			&cli.IntFlag{Name: "max-calls-per-user", Value: 4, Usage: "with --auth-issuer: at most `N` calls in flight per user"},
			&cli.Float64Flag{Name: "calls-per-second", Value: 20, Usage: "with --auth-issuer: each user's sustained rate `R` (bursts of twice it)"},
			&cli.DurationFlag{Name: "jwks-refresh", Value: mcpserver.DefaultKeysRefresh, Usage: "with --auth-issuer: fetch the issuer's key set again every `D` (at least 10s), so a removed key stops working within D"},
			&cli.BoolFlag{Name: "allow-typ-jwt", Usage: "with --auth-issuer: also accept tokens whose typ header is JWT, or absent (issuers that do not mint RFC 9068 at+jwt)"},
		}, followFlags("/mcp/NAME (with --http)")...),
		Action: func(c *cli.Context) error {
			cfg, err := e.mcpConfig(c)
			if err != nil {
				return err
			}
			fo, err := readFollow(c)
			if err != nil {
				return err
			}
			if fo != nil && fo.multi {
				for _, src := range fo.sources { // placeholders, for the checks before anything is downloaded
					cfg.Sites = append(cfg.Sites, mcpserver.Site{Name: src.Name})
				}
			}
			if err := cfg.Check(); err != nil {
				return err
			}
			return e.runMCP(c.Context, cfg, fo)
		},
	}
}

// mcpConfig turns a `ctool mcp` command line into the server's Config, refusing flags that make no
// sense together; the server checks its addresses and URLs itself.
func (e *env) mcpConfig(c *cli.Context) (mcpserver.Config, error) {
	if err := noArgs(c); err != nil {
		return mcpserver.Config{}, err
	}
	timeout, err := callTimeout(c)
	if err != nil {
		return mcpserver.Config{}, err
	}
	addr := c.String("http")
	switch {
	case c.IsSet("allow-remote") && addr == "":
		return mcpserver.Config{}, usageError("--allow-remote applies only with --http")
	case c.IsSet("drain") && addr == "":
		return mcpserver.Config{}, usageError("--drain applies only with --http (on stdio the server drains when stdin closes)")
	case c.Duration("drain") <= 0 || c.Duration("drain") > 10*time.Minute:
		return mcpserver.Config{}, usageError("--drain must be positive and at most 10m")
	}
	auth, err := authConfig(c, addr)
	if err != nil {
		return mcpserver.Config{}, err
	}
	memory := mcpserver.DefaultMemory
	if c.IsSet("memory") {
		if memory, err = sizeValue(c, "memory", "1GiB", true); err != nil {
			return mcpserver.Config{}, err
		}
	}
	return mcpserver.Config{DB: e.dbPath(c), Profiles: e.getenv("NARRATIVE_DATA_FILE"), Pinned: setValues(c, "profile-id"),
		Timeout: timeout, Memory: memory, Version: version, HTTP: addr, AllowRemote: c.Bool("allow-remote"), Drain: c.Duration("drain"),
		Metrics: c.String("metrics"), Auth: auth, Stdin: e.stdin, Stdout: e.stdout, Log: e.stderr}, nil
}

// authConfig reads the OAuth flags: nil without --auth-issuer, where the others make no sense.
func authConfig(c *cli.Context, addr string) (*mcpserver.AuthConfig, error) {
	if !c.IsSet("auth-issuer") {
		for _, name := range []string{"resource", "profile-claim", "max-calls-per-user", "calls-per-second", "jwks-refresh", "allow-typ-jwt"} {
			if c.IsSet(name) {
				return nil, usageError("--%s applies only with --auth-issuer", name)
			}
		}
		return nil, nil
	}
	switch {
	case addr == "":
		return nil, usageError("--auth-issuer applies only with --http: a stdio server has one client, which started it")
	case c.IsSet("profile-id"):
		return nil, usageError("--profile-id and --auth-issuer cannot be used together: with auth, get_user_profile returns the caller's own profile").
			WithHint("drop --profile-id; the token's --profile-claim names the profile")
	case c.String("resource") == "":
		return nil, usageError("--auth-issuer needs --resource, this server's URL as clients reach it (e.g. https://concierge.example/mcp)")
	case strings.TrimSpace(c.String("profile-claim")) == "":
		return nil, usageError("--profile-claim is empty: name the claim holding the profile id (default sub)")
	case c.Int("max-calls-per-user") < 1:
		return nil, usageError("--max-calls-per-user %d: want at least 1", c.Int("max-calls-per-user"))
	case !(c.Float64("calls-per-second") > 0):
		return nil, usageError("--calls-per-second %v: want more than 0", c.Float64("calls-per-second"))
	case c.Duration("jwks-refresh") < mcpserver.MinKeysRefresh:
		return nil, usageError("--jwks-refresh %v: want at least %v (the issuer is not asked for its keys more often)", c.Duration("jwks-refresh"), mcpserver.MinKeysRefresh)
	}
	return &mcpserver.AuthConfig{Issuer: c.String("auth-issuer"), Resource: c.String("resource"),
		ProfileClaim: c.String("profile-claim"), MaxInFlight: c.Int("max-calls-per-user"),
		Rate: c.Float64("calls-per-second"), KeysRefresh: c.Duration("jwks-refresh"), AllowJWTType: c.Bool("allow-typ-jwt")}, nil
}

// runMCP readies the process for a long-lived server (its memory cap and collector target) and runs
// it until a signal: the first starts the drain, a second ends it at once. With fo, the builds come
// from its sites (internal/sites), followed while the server runs.
func (e *env) runMCP(ctx context.Context, cfg mcpserver.Config, fo *followOptions) error {
	if err := e.capMemory(); err != nil {
		return err
	}
	tuneGC()
	ctx, abort, stop := signals(ctx)
	defer stop()
	cfg.Abort = abort
	if fo != nil {
		lw := &lineWriter{w: cfg.Log}
		cfg.Log = lw
		set, err := sites.Open(ctx, fo.config(slog.New(mcpserver.LogHandler(lw)), false))
		if err != nil {
			return err
		}
		defer set.Close()
		cfg.Sites = nil
		if fo.multi {
			for _, s := range set.Sites {
				cfg.Sites = append(cfg.Sites, mcpserver.Site{Name: s.Name, DB: s.DB, NoProfiles: s.Followed})
			}
		} else {
			cfg.DB, cfg.NoProfiles = set.Sites[0].DB, set.Sites[0].Followed
		}
		cfg.Health = set.HealthHandler()
		cfg.Collectors = []prometheus.Collector{set.Collector()}
		set.Start(ctx)
	}
	return mcpserver.Run(ctx, cfg)
}

// signals returns a context that ends at the first SIGINT or SIGTERM (finish what is in flight, take
// nothing new) and a channel closed at the second (stop at once), as systemd and Kubernetes expect.
// stop releases the signals.
func signals(parent context.Context) (drain context.Context, abort <-chan struct{}, stop func()) {
	drain, cancel := context.WithCancel(parent)
	now := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			close(now)
		case <-done:
		}
	}()
	return drain, now, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
