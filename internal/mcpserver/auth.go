package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"
)

// The scopes a token needs: one for the three search tools, one for get_user_profile.
const (
	scopeSearch  = "ctool:search"
	scopeProfile = "ctool:profile"
)

// metadataPath is where the protected resource metadata (RFC 9728) is served, for the resource at
// Path and at the root form.
const metadataPath = "/.well-known/oauth-protected-resource"

// AuthConfig makes `ctool mcp --http` an OAuth 2.1 resource server.
type AuthConfig struct {
	Issuer   string // the authorization server; its keys are found by discovery
	Resource string // this server's URL, which each token's aud must contain (RFC 8707)
	// ProfileClaim names the claim holding the caller's profile id ("" is sub).
	ProfileClaim string
	// Fair share per subject: calls in flight, and a token bucket of twice the rate (0 for each is 4
	// and 20/s).
	MaxInFlight int
	Rate        float64
	// KeysRefresh is the longest time between two fetches of the key set (0 is DefaultKeysRefresh; at
	// least MinKeysRefresh): a key the issuer removes stops verifying within it.
	KeysRefresh time.Duration
	// AllowJWTType accepts tokens whose typ header is JWT, or absent, besides RFC 9068's at+jwt.
	AllowJWTType bool

	// What the tests change: the bucket's size, how often an unknown kid fetches the key set again
	// (0 is 10 s), and the client that fetches (nil: 10 s timeout, no redirects).
	burst        int
	refetchEvery time.Duration
	client       *http.Client
	// place is the build's, which the metadata's resource name says (Run sets it).
	place schema.Place
}

// check refuses an issuer or resource URL a token could not safely name.
func (c AuthConfig) check() error {
	if err := checkIssuer(c.Issuer); err != nil {
		return fault.Errorf(fault.KindUsage, "--auth-issuer: %v", err)
	}
	if checkIssuer(c.Resource) != nil {
		return fault.Errorf(fault.KindUsage, "--resource %q: want this server's https URL, e.g. https://concierge.example/mcp", c.Resource)
	}
	return nil
}

// authorizer is a resource server's checks, in front of the MCP handler and in each tool.
type authorizer struct {
	cfg         AuthConfig
	verifier    *verifier
	share       *fairShare
	metadataURL string
	metadata    *oauthex.ProtectedResourceMetadata
	log         *eventLog  // set by newServer (observe); nil writes nothing
	metrics     *metricSet // set by newServer (observe); nil counts nothing
}

// Extra keys of a verified token's auth.TokenInfo.
const (
	extraProfile = "ctool.profile" // the profile claim's value, when the token has it
	extraSubject = "ctool.subject" // the keyed hash of the subject, for the log
)

// newAuth checks c, discovers the issuer's keys and fetches them: a server that cannot verify
// tokens fails at start, not at its first call. The keys are fetched again on a schedule until Close.
func newAuth(ctx context.Context, c AuthConfig) (*authorizer, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	res, _ := url.Parse(c.Resource)
	if c.ProfileClaim == "" {
		c.ProfileClaim = "sub"
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 4
	}
	if c.Rate <= 0 {
		c.Rate = 20
	}
	if c.burst <= 0 {
		c.burst = max(1, int(math.Ceil(2*c.Rate)))
	}
	if c.refetchEvery <= 0 {
		c.refetchEvery = 10 * time.Second
	}
	if c.KeysRefresh <= 0 {
		c.KeysRefresh = DefaultKeysRefresh
	}
	c.KeysRefresh = max(c.KeysRefresh, MinKeysRefresh)
	if c.client == nil {
		c.client = newHTTPClient()
	}
	keys, err := discover(ctx, c.client, c.Issuer, c.refetchEvery, c.KeysRefresh)
	if err != nil {
		e := fault.Explain(err)
		return nil, &fault.Error{Kind: fault.KindUsage, Message: "--auth-issuer " + c.Issuer + ": " + e.Message, Hint: e.Hint, Err: err}
	}
	key := make([]byte, 32)
	rand.Read(key)
	meta := *res
	meta.Path, meta.RawPath = metadataPath+strings.TrimSuffix(res.Path, "/"), ""
	return &authorizer{
		cfg: c,
		verifier: &verifier{issuer: c.Issuer, resource: c.Resource, profileClaim: c.ProfileClaim, allowJWTType: c.AllowJWTType, keys: keys,
			subjectKey: key, now: time.Now, cache: map[[32]byte]verified{}},
		share:       newFairShare(c.MaxInFlight, rate.Limit(c.Rate), c.burst),
		metadataURL: meta.String(),
		metadata: &oauthex.ProtectedResourceMetadata{
			Resource:               c.Resource,
			AuthorizationServers:   []string{c.Issuer},
			ScopesSupported:        []string{scopeSearch, scopeProfile},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "ctool: " + title(c.place),
		},
	}, nil
}

// forSite is the authorizer of one site of `ctool mcp --site`: its own protected resource (its
// metadata at metadataPath + the resource's path, tokens for its audience alone) and place, with the
// issuer's keys and each user's fair share shared with every other site.
func (a *authorizer) forSite(resource string, place schema.Place) *authorizer {
	res, _ := url.Parse(resource)
	meta := *res
	meta.Path, meta.RawPath = metadataPath+strings.TrimSuffix(res.Path, "/"), ""
	cfg := a.cfg
	cfg.Resource, cfg.place = resource, place
	v := a.verifier
	md := *a.metadata
	md.Resource, md.ResourceName = resource, "ctool: "+title(place)
	return &authorizer{cfg: cfg, share: a.share, metadataURL: meta.String(), metadata: &md,
		verifier: &verifier{issuer: v.issuer, resource: resource, profileClaim: v.profileClaim, allowJWTType: v.allowJWTType,
			keys: v.keys, subjectKey: v.subjectKey, now: v.now, cache: map[[32]byte]verified{}}}
}

// close stops fetching the issuer's keys.
func (a *authorizer) close() { a.verifier.keys.close() }

// observe has the refusals written to l and counted in m, and the key set's failed fetches logged
// (either may be nil).
func (a *authorizer) observe(l *eventLog, m *metricSet) {
	a.log, a.metrics = l, m
	a.verifier.keys.log.Store(l)
}

// keyedHash names a subject in the log without revealing it: HMAC-SHA-256 under a key made at start,
// so a subject's lines match within one run and cannot be looked up against a list of ids.
func keyedHash(key []byte, subject string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(subject))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// subjectOf is a verified token's hashed subject, "" without one.
func subjectOf(ti *auth.TokenInfo) string {
	if ti == nil {
		return ""
	}
	s, _ := ti.Extra[extraSubject].(string)
	return s
}

type verifiedKey struct{}

// protect puts the checks in front of the MCP handler: a bearer token (401), the caller's fair share
// (429), no batch (400) and the called tool's scope (403). What passes reaches the SDK through
// auth.RequireBearerToken, which hands the token's TokenInfo to the tool handlers.
func (a *authorizer) protect(next http.Handler) http.Handler {
	inner := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := r.Context().Value(verifiedKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: a.metadataURL, ClockSkew: skew})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		fields := strings.Fields(r.Header.Get("Authorization"))
		if len(fields) != 2 || !strings.EqualFold(fields[0], "Bearer") {
			a.refuse(w, start, refusal{why: reasonMissing}) // no bearer token: RFC 6750 names no error
			return
		}
		ti, why := a.verifier.verify(r.Context(), fields[1])
		if ti == nil {
			a.refuse(w, start, refusal{why: why})
			return
		}
		subject := subjectOf(ti)
		release, wait := a.share.enter(ti.UserID, time.Now())
		if release == nil {
			a.refuse(w, start, refusal{why: reasonRate, subject: subject, retryAfter: wait})
			return
		}
		defer release()
		if r.Body != nil && r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
				a.refuse(w, start, refusal{why: reasonBatch, subject: subject})
				return
			}
			if tool, ok := calledTool(body); ok {
				if scope := toolScope(tool); scope != "" && !hasScope(ti, scope) {
					a.refuse(w, start, refusal{why: reasonScope, subject: subject, tool: tool, scope: scope})
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedKey{}, ti)))
	})
}

// calledTool is the tool a tools/call request names. The keys are matched exactly, as the SDK's
// decoder matches them (encoding/json's struct fields would also take "Name" for "name").
func calledTool(body []byte) (string, bool) {
	var msg map[string]json.RawMessage
	var method, name string
	if json.Unmarshal(body, &msg) != nil || json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" {
		return "", false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || json.Unmarshal(params["name"], &name) != nil {
		return "", false
	}
	return name, true
}

// maxBody bounds a request read before the SDK sees it.
const maxBody = 4 << 20

// refusal is one request turned away, and why.
type refusal struct {
	why        reason
	subject    string // the keyed hash, once the token is verified
	tool       string
	scope      string        // reasonScope: the scope the tool needs
	retryAfter time.Duration // reasonRate
}

// refuse answers every refusal: the status and WWW-Authenticate header the specifications name
// (RFC 6750 section 3, RFC 9728 section 5.1, MCP's step-up for a missing scope), one log line and
// the count in the metrics.
func (a *authorizer) refuse(w http.ResponseWriter, start time.Time, r refusal) {
	meta := fmt.Sprintf("resource_metadata=%q", a.metadataURL)
	status, body := http.StatusUnauthorized, `{"error":"invalid_token"}`
	switch r.why {
	case reasonMissing:
		w.Header().Set("WWW-Authenticate", "Bearer "+meta)
		body = `{"error":"unauthorized","error_description":"a bearer token is required"}`
	case reasonScope:
		status = http.StatusForbidden
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, %s`, r.scope, meta))
		body = fmt.Sprintf(`{"error":"insufficient_scope","scope":%q}`, r.scope)
	case reasonRate:
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", fmt.Sprint(max(1, int(math.Ceil(r.retryAfter.Seconds())))))
		body = `{"error":"too_many_requests","error_description":"too many calls from this user; retry after the Retry-After seconds"}`
	case reasonBatch:
		status = http.StatusBadRequest
		body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are not accepted: send one request per POST"}}`
	default:
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", `+meta)
		body = fmt.Sprintf(`{"error":"invalid_token","error_description":%q}`, describe[r.why])
	}
	// Logged before the answer, so a client that reads it finds the line written.
	a.log.call(callEntry{tool: r.tool, subject: r.subject, refused: r.why}, start)
	a.metrics.authRefused(r.why)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	io.WriteString(w, body+"\n")
}

var describe = map[reason]string{
	reasonExpired:   "the token has expired, is not valid yet, or has no exp",
	reasonAudience:  "the token was issued by another issuer or for another resource",
	reasonSignature: "the token is malformed or its signature cannot be verified",
	reasonType:      "the token is malformed or its signature cannot be verified", // as malformed: the log says why
}

// metadataHandler serves the protected resource metadata, without authentication.
func (a *authorizer) metadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(a.metadata)
}
