package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/loopback"
)

// Discovery: where an issuer's metadata is (RFC 8414, OpenID Connect Discovery), and the
// fetch of its documents.

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
