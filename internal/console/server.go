// Package console owns ctool's web console for operations staff: a read-only browser of one build
// (overview, lists with facets and search, whole records, exports), what changed since a previous
// build, and the last validation of an input directory. Pages are server-rendered from embedded
// templates and read fully without JavaScript. It reads the build through the one path every reader
// takes (database.Live, database.Conn): its statements are ctool's own SQL built from schema/'s names, and
// everything a visitor typed is a bound argument. It never opens the profiles file, and shows
// nothing of the profiles dataset.
package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/loopback"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what one console serves.
type Config struct {
	DB      string // the main database file
	Against string // a previous build (a database file or an input directory); "" for none
	Input   string // the input directory whose freshness and validation are shown; "" for none
	// IdentityHeader names the request header an authenticating proxy sets to the signed-in user;
	// "" trusts none.
	IdentityHeader string
	// Loopback says the console listens on a loopback address: requests naming another host are
	// refused (DNS rebinding).
	Loopback bool
	Log      *slog.Logger
	Now      func() time.Time // the clock; nil for time.Now
	Version  string
}

// Server is the console's HTTP handler.
type Server struct {
	cfg     Config
	live    *database.Live
	pages   map[string]*template.Template
	mux     *http.ServeMux
	changes changesCache
	checks  validationCache
	status  statusCache
}

// New opens nothing yet: the build is opened at the first request that needs it (Open opens it at
// once). Close releases it.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if n := database.RemoveStaleParquetDirs(); n > 0 {
		cfg.Log.Info("removed stale export directories", "count", n)
	}
	s := &Server{cfg: cfg, live: database.NewLive(cfg.DB)}
	var err error
	if s.pages, err = parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Open opens the build now, so that a console without one fails at its start.
func (s *Server) Open(ctx context.Context) (buildID string, err error) {
	b, release, err := s.live.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return b.ID, nil
}

// Close closes the build and whatever a comparison keeps open.
func (s *Server) Close() {
	s.changes.close()
	s.live.Close()
}

func (s *Server) routes() {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", cacheStatic(http.FileServerFS(static))))
	mux.HandleFunc("GET /{$}", s.overview)
	mux.HandleFunc("GET /lang", s.setLang)
	mux.HandleFunc("GET /changes", s.changesPage)
	mux.HandleFunc("GET /changes/{file}", s.changesDataset)
	mux.HandleFunc("GET /validation", s.validationPage)
	mux.HandleFunc("GET /source", s.sourcePage)
	mux.HandleFunc("GET /{file}", s.list)
	for _, t := range tables {
		mux.HandleFunc("GET /"+t.D.Name+"/record", s.record)
	}
	s.mux = mux
}

// ServeHTTP checks the request (host, method, origin), sets the security headers and serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script runs (the pages need none); nothing is framed; forms and styles stay on this origin.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if s.cfg.Loopback && !loopback.Is(r.Host) {
		http.Error(w, "Forbidden: this console answers only requests to a loopback host", http.StatusForbidden)
		return
	}
	// A link from another site may open a page, never start a download: an export is data leaving.
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" && (r.Header.Get("Sec-Fetch-Mode") != "navigate" || isExport(r.URL.Path)) {
		http.Error(w, "Forbidden: cross-site request", http.StatusForbidden)
		return
	}
	user := ""
	if s.cfg.IdentityHeader != "" {
		// Two values mean a client sent its own beside the proxy's: neither can be trusted.
		if len(r.Header.Values(s.cfg.IdentityHeader)) > 1 {
			http.Error(w, "Forbidden: more than one "+s.cfg.IdentityHeader+" header", http.StatusForbidden)
			return
		}
		user = r.Header.Get(s.cfg.IdentityHeader)
		if user == "" {
			http.Error(w, "Forbidden: no "+s.cfg.IdentityHeader+" header (the console expects its authenticating proxy)", http.StatusForbidden)
			return
		}
	}
	start := s.cfg.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.mux.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status, "ms", s.cfg.Now().Sub(start).Milliseconds()}
	if user != "" {
		attrs = append(attrs, "user", user)
	}
	s.cfg.Log.Info("request", attrs...)
}

// isExport reports whether a path names a file to download (a list or changes export: /stores.csv),
// as opposed to a page or a static asset.
func isExport(path string) bool {
	if strings.HasPrefix(path, "/static/") {
		return false
	}
	return strings.Contains(path[strings.LastIndexByte(path, '/')+1:], ".")
}

type userKey struct{}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Flush lets exports stream through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func cacheStatic(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// conn runs fn on one call's connection to the current build.
func (s *Server) conn(ctx context.Context, fn func(b *database.Build, c *database.Conn) error) error {
	b, release, err := s.live.Acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	c, err := b.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(b, c)
}

// httpError is a failure to show a visitor: its status and a message in their words. The message
// never holds data: it is one of the console's own sentences (a key of messages, with fmt's verbs),
// or a parameter's own problem.
type httpError struct {
	status int
	msg    string
	args   []any // the verbs' values; a localized one is written in the page's language
}

// localized is a value of a message that has words of its own (the unknown parameters' notice).
type localized interface{ localize(p *page) string }

// text is the message in p's language.
func (e *httpError) text(p *page) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if l, ok := a.(localized); ok {
			a = l.localize(p)
		}
		args[i] = a
	}
	return p.Tf(e.msg, args...)
}

func (e *httpError) Error() string { return e.text(&page{Lang: "en"}) }

func badRequest(msg string, args ...any) error {
	return &httpError{http.StatusBadRequest, msg, args}
}

var errNotFound = &httpError{status: http.StatusNotFound, msg: "There is no such page or record."}

// fail writes err as a page. Errors from the engine are logged and shown only as "could not read the
// build": their text may quote data.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		s.cfg.Log.Error("request failed", "path", r.URL.Path, "error", err.Error())
		he = &httpError{status: http.StatusInternalServerError}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			he.status = http.StatusServiceUnavailable
		}
	}
	p := s.newPage(r, "error")
	p.Status = he.status
	if he.msg != "" {
		p.Message = he.text(p)
	}
	s.render(w, p.withStatus(he.status), "error", p)
}

// once-per-input caches.

type statusCache struct {
	mu  sync.Mutex
	key string
	val *changes.Status
}
