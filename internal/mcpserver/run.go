package mcpserver

import (
	"context"
	"github.com/azabudai/ctool/internal/loopback"
	"io"
	"net"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/schema"
)

// Config is one `ctool mcp`, as cmd/ctool reads it from the command line.
type Config struct {
	DB       string        // the main database file, opened once and read-only
	Profiles string        // the profiles file (NARRATIVE_DATA_FILE); "" for the default
	Pinned   []string      // --profile-id, when given: the only id get_user_profile returns (profile.NewFinder)
	Timeout  time.Duration // each call's limit, from its start to its answer (--timeout)
	Version  string        // the server's version, as clients see it

	// HTTP is where streamable HTTP is served (host:port); "" serves Stdin and Stdout.
	HTTP string
	// AllowRemote lets HTTP and Metrics listen where other machines reach them; without it both are
	// loopback addresses, except HTTP when Auth guards it.
	AllowRemote bool
	// Drain is how long the HTTP calls in flight may finish once ctx ends; 0 is DefaultDrain.
	Drain time.Duration
	// Abort, when closed (a second signal), ends a drain at once.
	Abort <-chan struct{}
	// Metrics is where /healthz, /readyz and /metrics are served (host:port); "" for none.
	Metrics string
	// Auth, with HTTP, makes the server an OAuth resource server; nil for none.
	Auth *AuthConfig

	Stdin  io.Reader
	Stdout io.Writer
	Log    io.Writer // the log: one JSON line per call and event (stderr)
}

// Run serves the four tools until ctx ends, then drains: over HTTP the calls in flight finish within
// Drain (or until Abort) while new ones are answered 503; on stdio, when Stdin ends, every request
// already read is answered. It opens the database, starts the query workers and, with Auth, finds
// the issuer's keys before it serves, so a server that cannot serve fails at once. Its errors are
// *fault.Error where a person can act on them.
//
// The workers collect garbage with this process's target (GOGC, or what the caller set): cmd/ctool
// sets a long-lived server's before it calls Run.
func Run(ctx context.Context, c Config) error {
	if err := c.check(); err != nil {
		return err
	}
	log := newEventLog(c.Log)
	// The server reads its build for hours: its own start (the tools' vocabulary) would otherwise leave
	// DuckDB's allocator holding megabytes it freed.
	live := database.NewLive(c.DB, database.WithBackgroundPurge())
	defer live.Close()
	finder, err := profile.NewFinder(live, c.Profiles, c.Pinned...)
	if err != nil {
		return err
	}
	health := &readiness{}
	var metrics *metricSet
	metricsURL := ""
	if c.Metrics != "" {
		metrics = newMetrics(toolNames(), c.Auth != nil)
		url, stopMonitor, err := listenMonitor(c.Metrics, monitorHandler(health, metrics))
		if err != nil {
			return err
		}
		defer stopMonitor() // after the workers stop: /readyz says 503 to the end
		metricsURL = url
	}
	// Open the database now: a server without one fails at once, not at its first call.
	b, release, err := live.Acquire(ctx)
	if err != nil {
		return err
	}
	build, place := b.ID, b.Place()
	release()

	var auth *authorizer
	if c.Auth != nil {
		a := *c.Auth
		a.place = place
		if auth, err = newAuth(ctx, a); err != nil {
			return err
		}
		defer auth.close()
	} else if c.HTTP != "" && !loopback.Is(c.HTTP) {
		log.warning("--http " + c.HTTP + " has no authentication: anyone who reaches the port can query the data and read every profile (add --auth-issuer and --resource)")
	}
	pool, err := startPool(ctx, c.DB, log, metrics)
	if err != nil {
		return err
	}
	defer pool.Close()
	if metrics != nil {
		metrics.watchWorkers(pool.Running, pool.Busy, pool.Waiting)
		metrics.watchBuild(liveBuild(live))
	}
	srv := newServer(serverConfig{live: live, profiles: finder, timeout: c.Timeout, log: log, version: c.Version,
		search: pool.Query, metrics: metrics, auth: auth})
	if c.HTTP == "" {
		health.ready()
		log.start("stdio", build, metricsURL)
		return serveStdio(ctx, srv, c.Stdin, c.Stdout, c.Timeout)
	}
	return serveHTTP(ctx, c.Abort, srv, httpConfig{addr: c.HTTP, timeout: c.Timeout, drain: c.Drain,
		log: log, build: build, health: health, metrics: metricsURL, auth: auth})
}

// check refuses, before anything is opened, an address the server must not listen on and an issuer
// or resource URL a token could not safely name.
func (c Config) check() error {
	if c.HTTP != "" {
		if _, _, err := net.SplitHostPort(c.HTTP); err != nil {
			return fault.Errorf(fault.KindUsage, "--http %s: want host:port, e.g. 127.0.0.1:8765", c.HTTP)
		}
		if !loopback.Is(c.HTTP) && !c.AllowRemote && c.Auth == nil {
			return fault.Errorf(fault.KindUsage, "--http %s is not a loopback address: anyone who can reach it could query the data and read profiles", c.HTTP).
				WithHint("ctool mcp --http 127.0.0.1:8765, or add --auth-issuer and --resource, or --allow-remote behind your own authentication")
		}
	}
	if c.Metrics != "" {
		_, port, err := net.SplitHostPort(c.Metrics)
		if err != nil {
			return fault.Errorf(fault.KindUsage, "--metrics %s: want host:port, e.g. 127.0.0.1:9465", c.Metrics)
		}
		if c.Metrics == c.HTTP && port != "0" {
			return fault.Errorf(fault.KindUsage, "--metrics %s: give it an address of its own, not the --http one", c.Metrics)
		}
		if !loopback.Is(c.Metrics) && !c.AllowRemote {
			return fault.Errorf(fault.KindUsage, "--metrics %s is not a loopback address", c.Metrics).
				WithHint("ctool mcp --metrics 127.0.0.1:9465, or add --allow-remote (with --http) for a scraper on another machine")
		}
	}
	if c.Auth != nil {
		return c.Auth.check()
	}
	return nil
}

// toolNames are the names of the four tools, the label values of the per-tool metrics.
func toolNames() []string {
	var names []string
	for _, t := range schema.Manifest() {
		names = append(names, t.Name)
	}
	return names
}
