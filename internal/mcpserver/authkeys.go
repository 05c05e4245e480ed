package mcpserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"fmt"
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
	"github.com/azabudai/ctool/internal/loopback"
	"github.com/go-jose/go-jose/v4"
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
