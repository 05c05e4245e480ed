package mcpserver

import (
	"context"
	"net/http"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Site is one build a server serves: at Path/Name with `ctool mcp --site`, with its own place,
// profiles file, query workers and metrics (labelled site) and, with auth, its own protected resource.
type Site struct {
	Name       string
	DB         string
	NoProfiles bool // its build has no profiles (a followed one): get_user_profile answers so
}

// SiteResource is the resource URL of a site of a server whose base URL is base: tokens for it name
// it in their audience, and its metadata is at /.well-known/oauth-protected-resource/mcp/NAME.
func SiteResource(base, name string) string {
	return strings.TrimSuffix(base, "/") + Path + "/" + name
}

// site is one Site being served.
type site struct {
	Site
	log    *eventLog
	live   *database.Live
	finder *profile.Finder
	build  string
	place  schema.Place
	auth   *authorizer
	pool   *worker.Pool
	srv    *mcp.Server
}

// newSite checks the site's profile settings; its build is opened by open.
func newSite(s Site, c Config, log *eventLog) (*site, error) {
	// The server reads its build for hours: its own start (the tools' vocabulary) would otherwise leave
	// DuckDB's allocator holding megabytes it freed.
	live := database.NewLive(s.DB, database.WithBackgroundPurge())
	finder, err := profile.NewFinder(live, c.Profiles, c.Pinned...)
	if err != nil {
		live.Close()
		return nil, err
	}
	finder.None = s.NoProfiles
	return &site{Site: s, log: log.site(s.Name), live: live, finder: finder}, nil
}

// open opens the site's build: a server without one fails at once.
func (s *site) open(ctx context.Context) error {
	b, release, err := s.live.Acquire(ctx)
	if err != nil {
		return err
	}
	s.build, s.place = b.ID, b.Place()
	release()
	return nil
}

// start starts the site's workers and makes its server; reg, when set, gets its metrics. The site's
// workers get an even share of c.Memory among the server's n sites.
func (s *site) start(ctx context.Context, c Config, reg *prometheus.Registry, n int) error {
	var metrics *metricSet
	if reg != nil {
		metrics = newSiteMetrics(reg, s.Name, toolNames(), s.auth != nil)
	}
	pool, err := startPool(ctx, s.DB, memoryShare(c.Memory, n), s.log, metrics)
	if err != nil {
		return err
	}
	s.pool = pool
	if metrics != nil {
		metrics.watchWorkers(pool.Running, pool.Busy, pool.Waiting)
		metrics.watchBuild(liveBuild(s.live))
	}
	s.srv = newServer(serverConfig{live: s.live, profiles: s.finder, timeout: c.Timeout, log: s.log, version: c.Version,
		search: pool.Query, metrics: metrics, auth: s.auth})
	return nil
}

// sitesHandler serves each site at Path/NAME and, with auth, its metadata at metadataPath/mcp/NAME.
func sitesHandler(sites []*site) http.Handler {
	mux := http.NewServeMux()
	for _, s := range sites {
		mount(mux, Path+"/"+s.Name, s.srv, s.auth)
	}
	return mux
}

// metricsHandler serves reg in Prometheus' text format.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
