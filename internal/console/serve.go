package console

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Serve listens on addr and serves s (a Server, or several under Mount) until ctx ends, then lets
// requests in flight finish for up to drain. ready is told the address it listens on (the port
// chosen, for :0) once it does.
func Serve(ctx context.Context, addr string, s http.Handler, drain time.Duration, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// No write timeout: an export of a million rows streams for as long as the client reads it.
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready("http://" + ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Mount serves h, a console, under prefix ("/azabu"), for a listener that serves several (ctool
// console --site): the prefix is taken off each request, and put back on the root-relative links of
// the HTML pages it answers (href, src and action) and on its redirects. Exports and other answers
// pass untouched. A request for the prefix alone is sent to prefix + "/".
func Mount(prefix string, h http.Handler) http.Handler {
	prefix = strings.TrimSuffix(prefix, "/")
	strip := http.StripPrefix(prefix, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == prefix {
			http.Redirect(w, r, prefix+"/", http.StatusMovedPermanently)
			return
		}
		pw := &prefixWriter{ResponseWriter: w, prefix: prefix}
		strip.ServeHTTP(pw, r)
		pw.finish()
	})
}

// prefixWriter holds an HTML answer until it ends, to put the prefix on its links; any other answer
// streams through.
type prefixWriter struct {
	http.ResponseWriter
	prefix  string
	decided bool
	html    bool
	status  int
	buf     bytes.Buffer
}

func (p *prefixWriter) WriteHeader(code int) {
	if p.decided {
		return
	}
	p.decided, p.status = true, code
	hd := p.Header()
	if loc := hd.Get("Location"); strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
		hd.Set("Location", p.prefix+loc)
	}
	if p.html = strings.HasPrefix(hd.Get("Content-Type"), "text/html"); p.html {
		hd.Del("Content-Length")
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if !p.decided {
		if p.Header().Get("Content-Type") == "" {
			p.Header().Set("Content-Type", http.DetectContentType(b))
		}
		p.WriteHeader(http.StatusOK)
	}
	if p.html {
		return p.buf.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

// Flush lets exports stream; an HTML page is written whole at its end.
func (p *prefixWriter) Flush() {
	if p.html {
		return
	}
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *prefixWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// finish writes a held HTML page with the prefix on its root-relative links.
func (p *prefixWriter) finish() {
	if !p.html {
		return
	}
	page := p.buf.Bytes()
	for _, attr := range []string{`href="/`, `src="/`, `action="/`} {
		page = prefixLinks(page, attr, p.prefix)
	}
	p.Header().Set("Content-Length", strconv.Itoa(len(page)))
	p.ResponseWriter.WriteHeader(p.status)
	p.ResponseWriter.Write(page)
}

// prefixLinks puts prefix before the path of every attr (`href="/`) that is not a "//" link to
// another host. The data in a page is HTML-escaped, so its quotes are never these.
func prefixLinks(page []byte, attr, prefix string) []byte {
	var out bytes.Buffer
	for {
		i := bytes.Index(page, []byte(attr))
		if i < 0 {
			out.Write(page)
			return out.Bytes()
		}
		end := i + len(attr)
		out.Write(page[:end-1])
		if end < len(page) && page[end] == '/' {
			out.WriteByte('/')
		} else {
			out.WriteString(prefix + "/")
		}
		page = page[end:]
	}
}
