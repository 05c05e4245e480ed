package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

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
