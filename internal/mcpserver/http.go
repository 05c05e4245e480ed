package mcpserver

import (
	"github.com/azabudai/ctool/internal/loopback"
	"net"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the HTTP server answers MCP requests.
const Path = "/mcp"

// handler serves srv over streamable HTTP at Path: stateless (no sessions; every POST stands alone)
// and answering with plain JSON rather than an event stream.
//
// DNS rebinding: a request that reaches a loopback address with a Host header naming anything else is
// refused by the SDK (403); net/http's CrossOriginProtection also refuses a browser's request from
// another origin (a web page's script), which the Host check alone lets through on a remote server.
//
// With auth, every request to Path needs a bearer token (authorizer.protect), and the protected resource
// metadata is served without one. Each request's JSON-RPC id comes back as it was sent (keepIDs).
func handler(srv *mcp.Server, auth *authorizer) http.Handler {
	mux := http.NewServeMux()
	mount(mux, Path, srv, auth)
	if auth != nil {
		mux.Handle(metadataPath, auth.metadataHandler())
	}
	return mux
}

// mount serves srv at path on mux, as handler describes, with its protected resource metadata at
// metadataPath+path when auth is set: each site of `ctool mcp --site` is one mount, at Path/NAME.
func mount(mux *http.ServeMux, path string, srv *mcp.Server, auth *authorizer) {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// A client that gives up on a request (it closes the connection) stops its query, for the
		// protocol versions where the POST is the whole request; older ones rely on the timeout.
		PropagateRequestCancellation: true,
	})
	h := keepIDs(sdk)
	if auth == nil {
		mux.Handle(path, checkOrigin(h))
		return
	}
	mux.Handle(path, checkOrigin(auth.protect(h)))
	mux.Handle(metadataPath+path, auth.metadataHandler())
}

// checkOrigin refuses cross-origin requests from browsers with net/http's CrossOriginProtection
// (Sec-Fetch-Site, else Origin against Host). A page this machine serves (a local inspector on another
// port) may call a server that listens on loopback only: both are this machine's.
func checkOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Forbidden: cross-origin request from "+r.Header.Get("Origin"), http.StatusForbidden)
	}))
	protected := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if localPage(r) {
			next.ServeHTTP(w, r)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// localPage reports whether r comes from a page of a loopback origin to a server on a loopback address.
func localPage(r *http.Request) bool {
	u, err := url.Parse(r.Header.Get("Origin"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && loopback.Is(local.String()) && loopback.Is(u.Host)
}
