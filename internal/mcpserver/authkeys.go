package mcpserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/azabudai/ctool/internal/loopback"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// algorithms are the only signature algorithms a token may use, whatever the issuer advertises:
// never none, never an HMAC (a token "signed" with a public key as its secret).
var algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}

// skew is how far the issuer's clock may be from ours when exp, nbf and iat are checked.
const skew = time.Minute

const (
	maxDocument = 1 << 20  // a discovery document or key set
	maxToken    = 16 << 10 // a bearer token
	maxVerified = 10000    // verified tokens kept in the cache
)

// checkIssuer refuses an issuer URL a token's iss could not safely name: https only, except a
// loopback host (tests, local development), and no query or fragment (RFC 8414 section 2).
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil {
		return fmt.Errorf("%q is not an absolute URL", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return fmt.Errorf("%q has a query or fragment", issuer)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback.Is(u.Host)) {
		return fmt.Errorf("%q is not https (plain http only on a loopback address)", issuer)
	}
	return nil
}

// discoveryURLs are the metadata documents of an issuer, in the order tried: RFC 8414's, then OpenID
// Connect's. With a path in the issuer, the well-known segment goes before it (RFC 8414 section 3);
// OpenID Connect's original form appends it, tried last.
func discoveryURLs(issuer string) []string {
	u, _ := url.Parse(issuer)
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	at := func(p string) string {
		v := *u
		v.RawPath, v.Path = "", ""
		return v.String() + p
	}
	urls := []string{at("/.well-known/oauth-authorization-server" + path), at("/.well-known/openid-configuration" + path)}
	if path != "" {
		urls = append(urls, at(path+"/.well-known/openid-configuration"))
	}
	return urls
}

// Key set fetches: the schedule's bounds, and each fetch's time limit.
const (
	DefaultKeysRefresh = 5 * time.Minute  // --jwks-refresh
	MinKeysRefresh     = 10 * time.Second // the least time between scheduled fetches, whatever max-age says
	fetchTimeout       = 10 * time.Second
)

// keySet is the issuer's public keys, fetched from its jwks_uri at start, then again on a schedule
// and when a token names a key it does not hold.
//
// The schedule fetches every refresh, sooner when the last answer's Cache-Control max-age says so
// (never sooner than MinKeysRefresh), and, after a failure, again after MinKeysRefresh, doubling up
// to refresh: a key the issuer removed stops verifying within refresh of its removal. A failed fetch
// keeps the keys fetched before. An unknown kid fetches at most once per every, so forged kids cannot
// make ctool hammer the issuer.
//
// As coreos/go-oidc's RemoteKeySet does, one fetch runs at a time, in a goroutine of its own under
// the key set's context, and whoever needs its result waits for its end within their own context; the
// keys are read under a lock never held across a fetch. So a slow issuer delays only the tokens that
// name a key ctool does not hold, never those it can verify.
type keySet struct {
	client  *http.Client
	uri     string
	every   time.Duration // the least time between fetches an unknown kid starts
	refresh time.Duration // the longest time between scheduled fetches

	mu   sync.RWMutex
	keys []jose.JSONWebKey
	gen  atomic.Uint64 // counts the fetches that removed or replaced a key

	fmu      sync.Mutex
	inflight chan struct{} // closed when the fetch under way ends; nil when none is
	tried    time.Time     // when the last fetch started
	due      time.Time     // when the schedule fetches next
	failures int           // scheduled or not, fetches failed in a row

	moved  chan struct{} // tells run that due has changed
	log    atomic.Pointer[eventLog]
	ctx    context.Context
	stop   context.CancelFunc
	ran    chan struct{} // closed when run returns
	closed sync.Once
}

func newHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		// A redirect could lead from the issuer's https to anywhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// discover finds the issuer's jwks_uri, fetches its keys and starts the schedule (close stops it).
//
// A document that names another issuer is not used, and the next URL is tried: RFC 8414 section 3.3
// and OpenID Connect Discovery section 4.3 forbid using it, not looking further. An Okta custom
// authorization server answers the path-inserted URLs with its organisation's document, and only
// the appended form names it; Entra ID's v1 issuer is found the same way.
//
// Its errors are *fault.Error with a hint naming what to check: the URL the operator can fetch, or
// the issuer a document names instead.
func discover(ctx context.Context, client *http.Client, issuer string, every, refresh time.Duration) (*keySet, error) {
	var problems, named []string
	urls := discoveryURLs(issuer)
	for _, u := range urls {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if _, err := getJSON(ctx, client, u, &meta); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if meta.Issuer != issuer {
			problems = append(problems, fmt.Sprintf("%s names issuer %q", u, meta.Issuer))
			if !slices.Contains(named, meta.Issuer) {
				named = append(named, meta.Issuer)
			}
			continue
		}
		if err := checkIssuer(meta.JWKSURI); err != nil {
			return nil, &fault.Error{Kind: fault.KindUsage, Message: fmt.Sprintf("%s: jwks_uri %v", u, err),
				Hint: "curl -s " + u + " | jq .jwks_uri: the issuer must publish its keys at an https URL"}
		}
		ks := &keySet{client: client, uri: meta.JWKSURI, every: every, refresh: refresh, tried: time.Now(),
			moved: make(chan struct{}, 1), ran: make(chan struct{})}
		maxAge, err := ks.fetch(ctx)
		if err != nil {
			return nil, &fault.Error{Kind: fault.KindUsage, Message: "its key set: " + err.Error(), Err: err,
				Hint: "curl -s " + meta.JWKSURI + " from this machine: the issuer's key set must answer 200 with its keys"}
		}
		ks.schedule(maxAge, nil)
		ks.ctx, ks.stop = context.WithCancel(context.Background())
		go ks.run()
		return ks, nil
	}
	e := &fault.Error{Kind: fault.KindUsage, Message: "no authorization server metadata for this issuer: " + strings.Join(problems, "; ")}
	if len(named) == 1 {
		// Most often the same issuer, a trailing slash apart.
		e.Hint = fmt.Sprintf("--auth-issuer %s, the issuer its metadata names, if its tokens are the ones to accept (iss must match exactly)", named[0])
	} else {
		e.Hint = "curl -s " + urls[len(urls)-1] + " | jq .issuer from this machine: --auth-issuer is that value, exactly as the tokens' iss has it"
	}
	return nil, e
}

// getJSON reads the JSON document at u into v, and returns the answer's header.
func getJSON(ctx context.Context, client *http.Client, u string, v any) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	if len(b) > maxDocument {
		return nil, fmt.Errorf("%s: larger than %d bytes", u, maxDocument)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return resp.Header, nil
}

// maxAge reads Cache-Control's max-age (RFC 9111 section 5.2.2.1), -1 without one; no-store and
// no-cache count as 0.
func maxAge(h http.Header) time.Duration {
	age := time.Duration(-1)
	for _, line := range h.Values("Cache-Control") {
		for directive := range strings.SplitSeq(line, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(directive), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0
			case "max-age":
				n, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(value), `"`), 10, 32)
				if err == nil && (age < 0 || time.Duration(n)*time.Second < age) {
					age = time.Duration(n) * time.Second
				}
			}
		}
	}
	return age
}

// fetch replaces the keys with the issuer's current set, and returns the answer's max-age. Keys ctool
// cannot use (symmetric ones, encryption keys, unknown types) are skipped, one by one.
func (ks *keySet) fetch(ctx context.Context) (time.Duration, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	header, err := getJSON(ctx, ks.client, ks.uri, &doc)
	if err != nil {
		return -1, err
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || k.Use == "enc" {
			continue
		}
		if !k.IsPublic() {
			k = k.Public() // a private key published by mistake: only its public half is used
		}
		switch k.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, k)
		}
	}
	ks.mu.Lock()
	if !covers(keys, ks.keys) {
		ks.gen.Add(1) // the tokens verified with a key now gone are verified again
	}
	ks.keys = keys
	ks.mu.Unlock()
	return maxAge(header), nil
}

// covers reports whether every key of old is in keys, the same key under the same kid and algorithm.
func covers(keys, old []jose.JSONWebKey) bool {
	id := func(k jose.JSONWebKey) string {
		t, _ := k.Thumbprint(crypto.SHA256)
		return k.KeyID + "\x00" + k.Algorithm + "\x00" + k.Use + "\x00" + string(t)
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[id(k)] = true
	}
	for _, k := range old {
		if !have[id(k)] {
			return false
		}
	}
	return true
}

// schedule sets when the schedule fetches next, after a fetch that ended with err and maxAge. fmu is
// held, or the schedule has not started.
func (ks *keySet) schedule(maxAge time.Duration, err error) {
	next := ks.refresh
	if err != nil {
		ks.failures++
		next = MinKeysRefresh << min(ks.failures-1, 16)
	} else {
		ks.failures = 0
		if maxAge >= 0 {
			next = min(next, maxAge)
		}
	}
	ks.due = time.Now().Add(min(max(next, MinKeysRefresh), ks.refresh))
}

// start begins a fetch unless one is under way, and returns the channel closed at its end. fmu is held.
func (ks *keySet) start() chan struct{} {
	if ks.inflight != nil {
		return ks.inflight
	}
	done := make(chan struct{})
	ks.inflight, ks.tried = done, time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(ks.ctx, fetchTimeout)
		maxAge, err := ks.fetch(ctx)
		cancel()
		if err != nil && ks.ctx.Err() == nil {
			ks.log.Load().keysFailed(err)
		}
		ks.fmu.Lock()
		ks.schedule(maxAge, err)
		ks.inflight = nil
		ks.fmu.Unlock()
		select {
		case ks.moved <- struct{}{}:
		default:
		}
		close(done)
	}()
	return done
}

// run is the schedule: it fetches when due comes, until close.
func (ks *keySet) run() {
	defer close(ks.ran)
	timer := time.NewTimer(ks.untilDue())
	defer timer.Stop()
	for {
		select {
		case <-ks.ctx.Done():
			return
		case <-ks.moved: // a fetch for an unknown kid moved due
		case <-timer.C:
			if ks.untilDue() <= 0 {
				ks.fmu.Lock()
				done := ks.start()
				ks.fmu.Unlock()
				select {
				case <-done:
				case <-ks.ctx.Done():
					return
				}
			}
		}
		timer.Reset(ks.untilDue())
	}
}

func (ks *keySet) untilDue() time.Duration {
	ks.fmu.Lock()
	defer ks.fmu.Unlock()
	return time.Until(ks.due)
}

// close stops the schedule and waits for a fetch under way to end.
func (ks *keySet) close() {
	ks.closed.Do(func() {
		ks.stop()
		<-ks.ran
		ks.fmu.Lock()
		done := ks.inflight
		ks.fmu.Unlock()
		if done != nil {
			<-done
		}
	})
}

// generation changes when a fetch removes or replaces a key.
func (ks *keySet) generation() uint64 { return ks.gen.Load() }

// find returns the key a token's header names. For a kid it does not hold it fetches the set again,
// or waits for the fetch under way, unless the last began less than every ago; ctx bounds the wait.
func (ks *keySet) find(ctx context.Context, kid, alg string) (crypto.PublicKey, bool) {
	if k, ok := ks.lookup(kid, alg); ok {
		return k, true
	}
	ks.fmu.Lock()
	done := ks.inflight
	if done == nil && time.Since(ks.tried) >= ks.every {
		done = ks.start()
	}
	ks.fmu.Unlock()
	if done == nil {
		return nil, false
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, false
	}
	return ks.lookup(kid, alg)
}

// lookup picks the key with the kid (or the only key, for a token without one) whose declared
// algorithm, if any, is the token's.
func (ks *keySet) lookup(kid, alg string) (crypto.PublicKey, bool) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	var found []jose.JSONWebKey
	for _, k := range ks.keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == alg) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return nil, false
	}
	return found[0].Key, true
}

// claims are the parts of an access token ctool reads beyond the registered ones.
type claims struct {
	Scope    string          `json:"scope"`
	SCP      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
}

// verifier checks access tokens and keeps the ones it accepted until they expire, or until a fetch of
// the key set removes or replaces a key (then each is checked again at its next use).
type verifier struct {
	issuer, resource, profileClaim string
	allowJWTType                   bool // typ JWT, or none, passes as well as at+jwt
	keys                           *keySet
	subjectKey                     []byte
	now                            func() time.Time

	mu    sync.Mutex
	cache map[[32]byte]verified
}

// verified is a token accepted with the keys of one generation.
type verified struct {
	ti  *auth.TokenInfo
	gen uint64
}

// reason is why authentication refused a request: one word of a fixed set, the same in the log's
// "refusal" and in the label of ctool_auth_refusals_total, never anything read from the token.
type reason string

const (
	reasonMissing   reason = "missing"   // no bearer token
	reasonExpired   reason = "expired"   // past exp, before nbf or iat, or no exp at all
	reasonAudience  reason = "audience"  // minted by another issuer or for another resource
	reasonSignature reason = "signature" // malformed, an algorithm ctool refuses, an unknown key or a bad signature
	reasonType      reason = "type"      // signed by the issuer, but its typ is not at+jwt: not an access token
	reasonScope     reason = "scope"     // the token lacks the tool's scope
	reasonRate      reason = "rate"      // past the caller's rate or calls in flight
	reasonBatch     reason = "batch"     // a JSON-RPC batch
)

// reasons are every reason, in the order docs/mcp.md lists them.
var reasons = []reason{reasonMissing, reasonExpired, reasonAudience, reasonSignature, reasonType, reasonScope, reasonRate, reasonBatch}

// verify returns the token's info, or the reason it is refused.
func (v *verifier) verify(ctx context.Context, raw string) (*auth.TokenInfo, reason) {
	now := v.now()
	if len(raw) > maxToken {
		return nil, reasonSignature
	}
	sum := sha256.Sum256([]byte(raw))
	gen := v.keys.generation() // before the check: a token checked with keys a fetch replaces meanwhile is checked again
	v.mu.Lock()
	c, ok := v.cache[sum]
	v.mu.Unlock()
	if ok {
		if c.gen == gen && now.Before(c.ti.Expiration.Add(skew)) {
			return c.ti, ""
		}
		v.mu.Lock()
		delete(v.cache, sum)
		v.mu.Unlock()
	}
	ti, why := v.check(ctx, raw, now)
	if ti == nil {
		return nil, why
	}
	v.mu.Lock()
	if len(v.cache) >= maxVerified {
		for k, c := range v.cache {
			if c.gen != gen || !now.Before(c.ti.Expiration.Add(skew)) {
				delete(v.cache, k)
			}
		}
		if len(v.cache) >= maxVerified {
			clear(v.cache)
		}
	}
	v.cache[sum] = verified{ti, gen}
	v.mu.Unlock()
	return ti, ""
}

// check verifies a token with go-jose: the algorithm against ctool's list, the signature with the
// issuer's key, then iss, aud, exp, nbf and iat.
func (v *verifier) check(ctx context.Context, raw string, now time.Time) (*auth.TokenInfo, reason) {
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, reasonSignature
	}
	h := tok.Headers[0]
	key, ok := v.keys.find(ctx, h.KeyID, h.Algorithm)
	if !ok {
		return nil, reasonSignature
	}
	var std jwt.Claims
	var more claims
	var all map[string]any
	if err := tok.Claims(key, &std, &more, &all); err != nil {
		return nil, reasonSignature
	}
	// After the signature: only the issuer's own tokens learn that their type is wrong.
	if !accessTokenType(h, v.allowJWTType) {
		return nil, reasonType
	}
	if std.Expiry == nil {
		return nil, reasonExpired
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.resource}, Time: now}, skew)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer), errors.Is(err, jwt.ErrInvalidAudience):
		return nil, reasonAudience
	case err != nil:
		return nil, reasonExpired
	}
	ti := &auth.TokenInfo{Scopes: scopes(more), Expiration: std.Expiry.Time(), UserID: std.Subject, Extra: map[string]any{}}
	if ti.UserID == "" && more.ClientID != "" {
		ti.UserID = "client:" + more.ClientID // fair share per client when there is no subject
	}
	if id, ok := all[v.profileClaim].(string); ok && id != "" {
		ti.Extra[extraProfile] = id
	}
	ti.Extra[extraSubject] = keyedHash(v.subjectKey, ti.UserID)
	return ti, ""
}

// accessTokenType reports whether a JWS header's typ names a JWT access token: at+jwt, RFC 9068
// section 4 (which has a resource server refuse any other value, and section 2.1 makes typ required),
// compared without regard to ASCII case and with its "application/" prefix optional (RFC 7515
// section 4.1.9). Explicit typing keeps an ID token or another JWT the issuer signs from passing for
// an access token (RFC 8725 section 3.11). With allowJWT, typ JWT and no typ pass as well: the
// access tokens of issuers that do not follow RFC 9068.
func accessTokenType(h jose.Header, allowJWT bool) bool {
	v, present := h.ExtraHeaders[jose.HeaderType]
	if !present {
		return allowJWT
	}
	typ, ok := v.(string)
	if !ok {
		return false
	}
	if len(typ) > len("application/") && strings.EqualFold(typ[:len("application/")], "application/") {
		typ = typ[len("application/"):]
	}
	return strings.EqualFold(typ, "at+jwt") || allowJWT && strings.EqualFold(typ, "jwt")
}

// scopes reads scope (RFC 8693 and 9068: scope tokens separated by U+0020, RFC 6749 section 3.3) or
// scp (a list, or a string of the same form). Only U+0020 separates: "ctool:search\tctool:profile" or
// one joined by a no-break space is a single token, which is no scope ctool knows. Such a token is not
// refused outright: ctool compares its scopes exactly, so a malformed one grants nothing, and a token
// that grants other services a scope ctool does not read stays usable here.
func scopes(c claims) []string {
	if c.Scope != "" {
		return splitScope(c.Scope)
	}
	var list []string
	if json.Unmarshal(c.SCP, &list) == nil {
		return list
	}
	var s string
	if json.Unmarshal(c.SCP, &s) == nil {
		return splitScope(s)
	}
	return nil
}

// splitScope splits a scope string on U+0020 alone, dropping the empty tokens of repeated spaces.
func splitScope(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' })
}
