package main

import (
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/internal/sites"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/urfave/cli/v2"
)

// followFlags are the flags of the servers (mcp, console) that serve builds from an object store,
// or several sites; where names the path a site is served at.
func followFlags(where string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "follow", Usage: "serve the build the object store at `URL` names (s3://bucket/prefix or file:///dir), then each new one published there"},
		&cli.DurationFlag{Name: "follow-interval", Value: publish.DefaultInterval, Usage: "with --follow or --site: read the store's latest every `D` (at least 1s)"},
		&cli.StringFlag{Name: "cache", Usage: "with --follow or --site: keep the builds in `DIR` (default: one directory per store under the user's cache directory)", TakesFile: true},
		&cli.StringSliceFlag{Name: "site", Usage: "serve `SITE`, NAME=URL (a store to follow) or NAME=PATH (a build file), at " + where + "; repeat for each site"},
	}
}

// followOptions are the servers' --follow, --site, --follow-interval and --cache, checked; nil
// without --follow or --site.
type followOptions struct {
	sources  []sites.Source
	interval time.Duration
	cache    string
	multi    bool // --site: several sites, each at its own path
}

func readFollow(c *cli.Context) (*followOptions, error) {
	follow, siteArgs := c.String("follow"), c.StringSlice("site")
	switch {
	case c.IsSet("follow") && follow == "":
		return nil, usageError("--follow is empty: name a store, s3://bucket/prefix or file:///dir")
	case follow != "" && len(siteArgs) > 0:
		return nil, usageError("--follow and --site cannot be used together: give the followed store as a site, --site NAME=URL")
	case (follow != "" || len(siteArgs) > 0) && c.IsSet("db"):
		return nil, usageError("--db cannot be used with --follow or --site: each names the builds to serve").
			WithHint("ctool " + c.Command.Name + " --follow URL, or --site NAME=PATH for a build file")
	case follow == "" && len(siteArgs) == 0:
		for _, name := range []string{"follow-interval", "cache"} {
			if c.IsSet(name) {
				return nil, usageError("--%s applies only with --follow or --site", name)
			}
		}
		return nil, nil
	}
	o := &followOptions{interval: c.Duration("follow-interval"), cache: c.String("cache"), multi: len(siteArgs) > 0}
	if o.interval < publish.MinInterval {
		return nil, usageError("--follow-interval %s: want at least %s", c.Duration("follow-interval"), publish.MinInterval)
	}
	if c.IsSet("cache") && o.cache == "" {
		return nil, usageError("--cache is empty")
	}
	if follow != "" {
		if _, err := publish.ParseURL(follow); err != nil {
			return nil, usageError("--follow: %v", err).WithHint("name a store: s3://bucket/prefix or file:///absolute/dir")
		}
		o.sources = []sites.Source{{Follow: follow}}
		return o, nil
	}
	for _, arg := range siteArgs {
		src, err := sites.ParseSite(arg)
		if err != nil {
			return nil, err
		}
		o.sources = append(o.sources, src)
	}
	return o, nil
}

// config is the sites' Config, logging to log.
func (o *followOptions) config(log *slog.Logger, buildMetrics bool) sites.Config {
	return sites.Config{Sources: o.sources, Interval: o.interval, Cache: o.cache, Log: log, BuildMetrics: buildMetrics}
}

// monitorHandler serves the sites' /healthz and, with the process's, their /metrics.
func monitorHandler(set *sites.Set) (healthz, metrics http.Handler) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(set.Collector(), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return set.HealthHandler(), promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// lineWriter writes each Write whole, one at a time: two loggers (the MCP server's and the
// followers') share stderr, and each writes a line per Write.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
