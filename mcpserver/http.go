package mcpserver

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the HTTP server answers MCP requests.
const Path = "/mcp"

// handler serves srv over streamable HTTP at Path: stateless (no sessions; every POST stands alone)
// and answering with plain JSON rather than an event stream.
//
// DNS rebinding: a request that reaches a loopback address with a Host header naming anything else is
// refused by the SDK (403); handler also refuses a request whose Origin header names another host
// (a web page's script), which the Host check alone lets through on a remote server.
//
// With auth, every request to Path needs a bearer token (Auth.protect), and the protected resource
// metadata is served without one.
func handler(srv *mcp.Server, auth *Auth) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// A client that gives up on a request (it closes the connection) stops its query, for the
		// protocol versions where the POST is the whole request; older ones rely on the timeout.
		PropagateRequestCancellation: true,
	})
	mux := http.NewServeMux()
	if auth == nil {
		mux.Handle(Path, checkOrigin(h))
		return mux
	}
	mux.Handle(Path, checkOrigin(auth.protect(h)))
	mux.Handle(MetadataPath+Path, auth.metadataHandler())
	mux.Handle(MetadataPath, auth.metadataHandler())
	return mux
}

// checkOrigin lets a request through when it has no Origin header (not from a browser) or when its
// origin is the server itself: a loopback host for a server on a loopback address, else the Host.
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(r, origin) {
			http.Error(w, "Forbidden: invalid Origin header "+origin, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func sameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && IsLoopback(local.String()) {
		return IsLoopback(u.Host)
	}
	return strings.EqualFold(u.Host, r.Host)
}

// IsLoopback reports whether a host or host:port names this machine only: localhost or a loopback IP.
func IsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
