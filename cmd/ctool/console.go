package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/internal/console"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/loopback"
	"github.com/azabudai/ctool/internal/sites"
	"github.com/urfave/cli/v2"
)

// defaultConsoleAddr is where the console listens unless told: this machine only.
const defaultConsoleAddr = "127.0.0.1:8780"

func newConsoleCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "console",
		Usage: "serve a read-only web console of the build for operations staff (browse, search, export, changes)",
		UsageText: "ctool console [--db PATH] [--http ADDR [--allow-remote]] [--against DB|DIR] [--input DIR]\n" +
			"   ctool console --http ADDR --allow-remote --identity-header NAME   (behind an authenticating proxy)\n" +
			"   ctool console --follow URL [--follow-interval D] [--cache DIR] ...\n" +
			"   ctool console --site NAME=URL|PATH [--site NAME=URL|PATH ...] [--follow-interval D] [--cache DIR] ...",
		Description: "Serves web pages for people, in Japanese and English, that read without JavaScript: an overview of the\n" +
			"build (its age in Tokyo time, the source files and, with --input, whether each is fresh or stale),\n" +
			"each dataset's typed view with facets, a search that folds full-/half-width and hiragana/katakana\n" +
			"(ちょこ and ﾁｮｺ find チョコ), sorting, paging and for stores an open-at filter (the agents' is_open,\n" +
			"unknown hours shown as unknown); a page per record with every field whole; and exports of any list\n" +
			"with its filters, all rows, as CSV, CSV for Excel (byte-order mark, CRLF, formula cells quoted), JSON\n" +
			"lines or Parquet. With --against (a previous build or input directory, as for 'ctool validate'):\n" +
			"the rows added, removed and changed, each changed field old and new. With --input: the last\n" +
			"validation of that directory, each problem linked to its file and line.\n\n" +
			"Profiles are never shown and their file is never opened; the agents' 10-row cap does not apply here\n" +
			"(this is not an agent tool). The console listens on a loopback address only unless --allow-remote is\n" +
			"given; requests naming another Host are refused (DNS rebinding). It has no login of its own: run it\n" +
			"behind an authenticating reverse proxy (oauth2-proxy, an identity-aware proxy), and name the header\n" +
			"that proxy sets with --identity-header to have requests without it refused and the user logged.\n" +
			"The log is JSON lines on stderr: first {\"msg\": \"serving\", \"serving\": URL, \"build\": ID}, then one\n" +
			"line a request. Stops on SIGINT or SIGTERM.\n\n" +
			"With --follow URL the build comes from an object store and is followed as 'ctool mcp --follow' follows\n" +
			"it (each new build checked and swapped in, the store's failures keeping the build shown); with --site\n" +
			"(repeated) each site is served at /NAME/ from its own build, a store to follow or a build file. With\n" +
			"either, /healthz answers JSON (each build, its age, the last failure to follow) and /metrics\n" +
			"Prometheus' text format, without --identity-header, as they hold no data." +
			exitStatus("the console stopped when asked", fault.KindUsage, fault.KindNoDatabase, fault.KindIO),
		Flags: append([]cli.Flag{
			dbFlag(),
			&cli.StringFlag{Name: "http", Value: defaultConsoleAddr, Usage: "listen on `ADDR` (host:port)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --http listen on an address other machines can reach (put an authenticating proxy in front)"},
			&cli.StringFlag{Name: "against", Usage: "show what changed since the previous build: a built database or an input `PATH`", TakesFile: true},
			&cli.StringFlag{Name: "input", Usage: "show the build's freshness against, and the validation of, the CSV files in `DIR`", TakesFile: true},
			&cli.StringFlag{Name: "identity-header", Usage: "trust request header `NAME` (set by the proxy) as the signed-in user; refuse requests without it"},
		}, followFlags("/NAME/")...),
		Action: func(c *cli.Context) error {
			opts, err := e.consoleOptions(c)
			if err != nil {
				return err
			}
			return runConsole(c.Context, opts)
		},
	}
}

// consoleOptions is a `ctool console` command line, checked.
type consoleOptions struct {
	io       *env
	db       string
	addr     string
	against  string
	input    string
	identity string
	follow   *followOptions // nil: the build at db
}

func (e *env) consoleOptions(c *cli.Context) (*consoleOptions, error) {
	if err := noArgs(c); err != nil {
		return nil, err
	}
	addr := c.String("http")
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageError("--http %s: want host:port, e.g. %s", addr, defaultConsoleAddr)
	}
	if !loopback.Is(addr) && !c.Bool("allow-remote") {
		return nil, usageError("--http %s is not a loopback address: anyone who can reach it could read the data", addr).
			WithHint("ctool console --http " + defaultConsoleAddr + ", or add --allow-remote behind an authenticating proxy")
	}
	opts := &consoleOptions{io: e, db: e.dbPath(c), addr: addr, against: c.String("against"), input: c.String("input")}
	var err error
	for _, dir := range []struct{ flag, path string }{{"against", opts.against}, {"input", opts.input}} {
		if c.IsSet(dir.flag) && dir.path == "" {
			return nil, usageError("--%s is empty", dir.flag)
		}
		if dir.path == "" {
			continue
		}
		info, err := os.Stat(dir.path)
		if err != nil {
			return nil, fault.Errorf(fault.KindIO, "--%s %s: %v", dir.flag, dir.path, err)
		}
		if dir.flag == "input" && !info.IsDir() {
			return nil, usageError("--input %s is not a directory", opts.input)
		}
	}
	if opts.follow, err = readFollow(c); err != nil {
		return nil, err
	}
	if opts.follow != nil && opts.follow.multi && (opts.against != "" || opts.input != "") {
		return nil, usageError("--against and --input apply to one build: not with --site")
	}
	if c.IsSet("identity-header") {
		h := c.String("identity-header")
		if h == "" || !validHeaderName(h) {
			return nil, usageError("--identity-header %q is not a header name", h)
		}
		opts.identity = h
	}
	return opts, nil
}

// validHeaderName reports an HTTP header name: letters, digits and - only.
func validHeaderName(h string) bool {
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func runConsole(ctx context.Context, opts *consoleOptions) error {
	e := opts.io
	if err := e.capMemory(); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var set *sites.Set
	if opts.follow != nil {
		var err error
		if set, err = sites.Open(ctx, opts.follow.config(log, true)); err != nil {
			return err
		}
		defer set.Close()
		if !opts.follow.multi {
			opts.db = set.Sites[0].DB
		}
	}
	var handler http.Handler
	var build string
	if set != nil && opts.follow.multi {
		mux := http.NewServeMux()
		var names []string
		for _, site := range set.Sites {
			srv, id, err := openConsole(ctx, opts, site.DB, log.With("site", site.Name))
			if err != nil {
				return err
			}
			defer srv.Close()
			mux.Handle("/"+site.Name+"/", console.Mount("/"+site.Name, srv))
			mux.Handle("/"+site.Name, console.Mount("/"+site.Name, srv))
			names = append(names, site.Name+"="+id)
		}
		mux.Handle("/{$}", sitesIndex(set))
		handler, build = mux, strings.Join(names, " ")
	} else {
		srv, id, err := openConsole(ctx, opts, opts.db, log)
		if err != nil {
			return err
		}
		defer srv.Close()
		handler, build = srv, id
	}
	if set != nil {
		healthz, metrics := monitorHandler(set)
		mux := http.NewServeMux()
		mux.Handle("GET /healthz", healthz)
		mux.Handle("GET /metrics", metrics)
		mux.Handle("/", handler)
		handler = mux
		set.Start(ctx)
	}
	if !loopback.Is(opts.addr) && opts.identity == "" {
		log.Warn("--http " + opts.addr + " is reachable from other machines and trusts no identity header: put an authenticating proxy in front and name its header with --identity-header")
	}
	err := console.Serve(ctx, opts.addr, handler, 10*time.Second, func(url string) {
		log.Info("serving", "serving", url, "build", build)
	})
	if err != nil {
		return fault.Errorf(fault.KindUsage, "--http %s: %v", opts.addr, err)
	}
	return nil
}

// openConsole makes the console of the build at db and opens it: a console without one fails at
// its start.
func openConsole(ctx context.Context, opts *consoleOptions, db string, log *slog.Logger) (*console.Server, string, error) {
	srv, err := console.New(console.Config{DB: db, Against: opts.against, Input: opts.input, IdentityHeader: opts.identity,
		Loopback: loopback.Is(opts.addr), Log: log, Version: version})
	if err != nil {
		return nil, "", fault.Errorf(fault.KindInternal, "console: %w", err)
	}
	build, err := srv.Open(ctx)
	if err != nil {
		srv.Close()
		return nil, "", err
	}
	return srv, build, nil
}

// sitesIndex is the page at / of a console of several sites: a link to each.
func sitesIndex(set *sites.Set) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		var b strings.Builder
		b.WriteString("<!doctype html>\n<meta charset=\"utf-8\">\n<title>ctool console</title>\n<ul>\n")
		for _, s := range set.Sites { // a site's name is letters, digits, - and _ only
			fmt.Fprintf(&b, "<li><a href=\"/%s/\">%s</a></li>\n", s.Name, s.Name)
		}
		b.WriteString("</ul>\n")
		io.WriteString(w, b.String())
	})
}
