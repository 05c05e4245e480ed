// Package sites owns what a server serves beyond one local build: builds followed from an object
// store (internal/publish) into a local cache, checked and swapped in while the server runs; several
// sites in one server, each its own build; their health, metrics and log lines; and, for `ctool
// publish`, a local build's manifest read from the build itself.
//
// A followed site is served from a link in its cache directory (CurrentName) that a swap re-points:
// every reader opens that path through database.Live, which opens the new build at its next call and
// lets the calls already running finish on the old one. The query workers of `ctool mcp` are other
// processes that open the same path, so they follow too, with nothing sent to them. A followed build
// has no profiles: they are personal data and never published beside builds, so the server answers
// every profile lookup that it has none (profile.Finder.None).
package sites

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/publish"
)

// Source is where one site's builds come from: a store it follows, or a build file on this machine.
type Source struct {
	Name   string // the site's name, its path segment; "" for a server's one site
	Follow string // a store URL (s3://bucket/prefix or file:///dir) to follow, or
	DB     string // a local build file, read as every reader reads one
}

// namePattern is what a site's name may be: it becomes a path segment and a metric label.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// reserved are names a site cannot take: the server's own paths.
var reserved = map[string]bool{"healthz": true, "readyz": true, "metrics": true, "static": true, "mcp": true, "well-known": true}

// ParseSite reads a --site value, NAME=URL or NAME=PATH: a value with "://" is a store to follow,
// anything else a local build file.
func ParseSite(arg string) (Source, error) {
	name, value, ok := strings.Cut(arg, "=")
	if !ok || value == "" {
		return Source{}, fault.Errorf(fault.KindUsage, "--site %q: want NAME=URL (a store to follow) or NAME=PATH (a build file)", arg)
	}
	if err := checkName(name); err != nil {
		return Source{}, err
	}
	if strings.Contains(value, "://") {
		if _, err := publish.ParseURL(value); err != nil {
			return Source{}, fault.Errorf(fault.KindUsage, "--site %s: %v", name, err).WithHint("name a store: s3://bucket/prefix or file:///absolute/dir")
		}
		return Source{Name: name, Follow: value}, nil
	}
	return Source{Name: name, DB: value}, nil
}

func checkName(name string) error {
	if !namePattern.MatchString(name) || reserved[name] {
		return fault.Errorf(fault.KindUsage, "--site name %q: want 1 to 63 lowercase letters, digits, - or _, starting with a letter or digit, and none of %s", name, reservedList())
	}
	return nil
}

func reservedList() string {
	return "healthz, readyz, metrics, static, mcp, well-known"
}

// Config is the sites of one server.
type Config struct {
	Sources []Source
	// Interval is how often each followed store's latest is read (0: publish.DefaultInterval; at
	// least publish.MinInterval).
	Interval time.Duration
	// Cache is the cache directory of a server's one followed site, or the parent of each site's
	// (Cache/NAME); "" puts each under the user's cache directory, one per store and site.
	Cache string
	// Log gets one line per change of a follower's state; nil writes none.
	Log *slog.Logger
	// BuildMetrics adds ctool_build_info and ctool_build_age_seconds to Collector: for a server that
	// has none of its own (the console; `ctool mcp` has them per site already).
	BuildMetrics bool
	// Now is the clock of the ages; nil is time.Now.
	Now func() time.Time
}

// Site is one site ready to serve.
type Site struct {
	Name     string
	DB       string // the path its readers open: the build file, or a followed site's link
	Followed bool   // its builds come from a store, and it has no profiles
	Source   string // the store's canonical URL, or the build file as given

	fw  *followed
	rec recordCache
}

// Set is a server's sites, their followers started.
type Set struct {
	Sites []*Site

	cfg    Config
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open makes every site ready: each followed one's first build found (the store's latest, else the
// newest cached build; with neither, an error of kind no_database) and its link pointed at it. Start
// runs the followers; Close releases them.
func Open(ctx context.Context, cfg Config) (*Set, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Interval != 0 && cfg.Interval < publish.MinInterval {
		return nil, fault.Errorf(fault.KindUsage, "--follow-interval %s: want at least %s", cfg.Interval, publish.MinInterval)
	}
	if len(cfg.Sources) == 0 {
		return nil, errors.New("sites: no source")
	}
	s := &Set{cfg: cfg}
	seen := map[string]bool{}
	log := &logger{l: cfg.Log}
	for _, src := range cfg.Sources {
		if seen[src.Name] {
			s.Close()
			return nil, fault.Errorf(fault.KindUsage, "--site %s is given twice", src.Name)
		}
		seen[src.Name] = true
		site := &Site{Name: src.Name, DB: src.DB, Source: src.DB}
		if src.Follow != "" {
			dir, err := cacheDir(cfg.Cache, src, len(cfg.Sources) > 1 || src.Name != "")
			if err != nil {
				s.Close()
				return nil, err
			}
			fw, err := startFollow(ctx, src.Name, src.Follow, dir, cfg.Interval, log)
			if err != nil {
				s.Close()
				return nil, err
			}
			site.fw, site.Followed, site.DB, site.Source = fw, true, fw.DB(), fw.url
		}
		s.Sites = append(s.Sites, site)
	}
	return s, nil
}

// cacheDir is where a followed site keeps its builds.
func cacheDir(cache string, src Source, named bool) (string, error) {
	switch {
	case cache != "" && named:
		return filepath.Join(cache, src.Name), nil
	case cache != "":
		return cache, nil
	}
	dir, err := publish.DefaultCacheDir(src.Follow)
	if err != nil {
		return "", fault.Errorf(fault.KindUsage, "--cache: %v", err).WithHint("name a cache directory: --cache DIR")
	}
	if named {
		dir += "-" + src.Name
	}
	return dir, nil
}

// Start runs each follower in the background, every interval, until ctx ends or Close.
func (s *Set) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	for _, site := range s.Sites {
		if site.fw != nil {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				site.fw.f.Run(ctx)
			}()
		}
	}
}

// Close stops the followers and lets another server use their cache directories. The builds stay
// where they are: the next start serves the newest if the store does not answer.
func (s *Set) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	for _, site := range s.Sites {
		if site.fw != nil {
			site.fw.f.Close()
		}
	}
}

// Status is a followed site's follower status; ok is false for a local build.
func (site *Site) Status() (publish.Status, bool) {
	if site.fw == nil {
		return publish.Status{}, false
	}
	return site.fw.f.Status(), true
}

// logger writes the followers' changes of state.
type logger struct{ l *slog.Logger }

// state writes one change of a follower's state: the build it serves, and the failure, if any.
func (g *logger) state(site, url string, s publish.Status) {
	if g == nil || g.l == nil {
		return
	}
	attrs := []slog.Attr{slog.String("follow", string(s.State))}
	if site != "" {
		attrs = append(attrs, slog.String("site", site))
	}
	attrs = append(attrs, slog.String("store", url))
	if s.Current.BuildID != "" {
		attrs = append(attrs, slog.String("build", s.Current.BuildID), slog.String("sha256", s.Current.SHA256))
	}
	if s.State != publish.StateCurrent && s.LastError != "" {
		attrs = append(attrs, slog.String("kind", string(s.LastErrorKind)), slog.String("error", s.LastError))
	}
	g.l.LogAttrs(context.Background(), slog.LevelInfo, "follow", attrs...)
}

// String names the site for messages.
func (site *Site) String() string {
	if site.Name == "" {
		return site.Source
	}
	return fmt.Sprintf("%s (%s)", site.Name, site.Source)
}
