package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/loopback"
	"github.com/azabudai/ctool/schema"
	"github.com/prometheus/client_golang/prometheus"
)

// Config is one `ctool mcp`, as cmd/ctool reads it from the command line.
type Config struct {
	DB       string        // the main database file, opened once and read-only
	Profiles string        // the profiles file (NARRATIVE_DATA_FILE); "" for the default
	Pinned   []string      // --profile-id, when given: the only id get_user_profile returns (profile.NewFinder)
	Timeout  time.Duration // each call's limit, from its start to its answer (--timeout)
	Memory   int64         // bytes the server and its workers may hold resident (--memory); 0 for no bound
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

	// Sites, with HTTP, serves each at Path/NAME in place of DB at Path; with Auth, each is a resource
	// of its own and Auth.Resource the server's base URL (SiteResource).
	Sites []Site
	// NoProfiles says DB has no profiles (a build followed from a store): get_user_profile answers so.
	NoProfiles bool
	// Health, when set, answers /healthz in place of "ok" and Collectors join /metrics (internal/sites).
	Health     http.Handler
	Collectors []prometheus.Collector

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
	specs := c.Sites
	if len(specs) == 0 {
		specs = []Site{{DB: c.DB, NoProfiles: c.NoProfiles}}
	}
	var sites []*site
	var auth *authorizer
	stopMonitor := func() {}
	defer func() {
		for _, s := range sites { // the workers first: /readyz says 503 to the end
			if s.pool != nil {
				s.pool.Close()
			}
		}
		if auth != nil {
			auth.close()
		}
		for _, s := range sites {
			s.live.Close()
		}
		stopMonitor()
	}()
	for _, spec := range specs {
		s, err := newSite(spec, c, log)
		if err != nil {
			return err
		}
		sites = append(sites, s)
	}
	health := &readiness{}
	var reg *prometheus.Registry
	metricsURL := ""
	if c.Metrics != "" {
		reg = newRegistry()
		for _, col := range c.Collectors {
			reg.MustRegister(col)
		}
		url, stop, err := listenMonitor(c.Metrics, monitorMux(health, metricsHandler(reg), c.Health))
		if err != nil {
			return err
		}
		stopMonitor, metricsURL = stop, url
	}
	// Open the databases now: a server without one fails at once, not at its first call.
	for _, s := range sites {
		if err := s.open(ctx); err != nil {
			return err
		}
	}
	if c.Auth != nil {
		a := *c.Auth
		if len(c.Sites) == 0 {
			a.place = sites[0].place
		}
		var err error
		if auth, err = newAuth(ctx, a); err != nil {
			return err
		}
	} else if c.HTTP != "" && !loopback.Is(c.HTTP) {
		log.warning("--http " + c.HTTP + " has no authentication: anyone who reaches the port can query the data and read every profile (add --auth-issuer and --resource)")
	}
	for _, s := range sites {
		s.auth = auth
		if auth != nil && len(c.Sites) > 0 {
			s.auth = auth.forSite(SiteResource(c.Auth.Resource, s.Name), s.place)
		}
		if err := s.start(ctx, c, reg, len(sites)); err != nil {
			return err
		}
	}
	if c.HTTP == "" {
		health.ready()
		log.start("stdio", sites[0].build, metricsURL)
		return serveStdio(ctx, sites[0].srv, c.Stdin, c.Stdout, c.Timeout)
	}
	hc := httpConfig{addr: c.HTTP, timeout: c.Timeout, drain: c.Drain, log: log, build: sites[0].build,
		health: health, metrics: metricsURL, auth: sites[0].auth}
	if len(c.Sites) > 0 {
		var builds []slog.Attr
		for _, s := range sites {
			builds = append(builds, slog.String(s.Name, s.build))
		}
		hc.handler, hc.build, hc.sites = sitesHandler(sites), "", slog.Attr{Key: "sites", Value: slog.GroupValue(builds...)}
	}
	return serveHTTP(ctx, c.Abort, sites[0].srv, hc)
}

// Check is check, for a caller with work to do before Run (following a store) that must not be wasted.
func (c Config) Check() error { return c.check() }

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
	if len(c.Sites) > 0 {
		if c.HTTP == "" {
			return fault.Errorf(fault.KindUsage, "--site applies only with --http: a stdio server has one client, which started it, and serves one build")
		}
		if c.Auth != nil && strings.HasSuffix(strings.TrimSuffix(c.Auth.Resource, "/"), Path) {
			return fault.Errorf(fault.KindUsage, "--resource %s: with --site, give the server's base URL; each site's resource is it and %s/NAME", c.Auth.Resource, Path).
				WithHint("--resource " + strings.TrimSuffix(strings.TrimSuffix(c.Auth.Resource, "/"), Path))
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
