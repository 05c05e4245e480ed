package mcpserver

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// testIssuer is an authorization server on loopback: discovery and a JWKS over real HTTP, RSA, EC
// and Ed25519 keys, and tokens minted with go-jose.
type testIssuer struct {
	*httptest.Server
	oidcOnly bool // serve only /.well-known/openid-configuration

	mu           sync.Mutex
	keys         map[string]testKey // by kid, the ones the JWKS publishes
	cacheControl string             // the JWKS answer's Cache-Control, when set
	jwksStatus   int                // the JWKS answer's status, when set
	jwksHold     chan struct{}      // when set, the JWKS answers once it is closed
	jwksHits     atomic.Int32
}

type testKey struct {
	alg jose.SignatureAlgorithm
	key crypto.Signer
}

func newTestIssuer(t testing.TB, oidcOnly bool) *testIssuer {
	t.Helper()
	iss := &testIssuer{oidcOnly: oidcOnly, keys: map[string]testKey{}}
	iss.add("rsa1", jose.RS256, mustRSA(t))
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	iss.add("ec1", jose.ES256, ec)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	iss.add("ed1", jose.EdDSA, ed)
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	}
	if !oidcOnly {
		mux.HandleFunc("/.well-known/oauth-authorization-server", meta)
	}
	mux.HandleFunc("/.well-known/openid-configuration", meta)
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.jwksHits.Add(1)
		iss.mu.Lock()
		hold := iss.jwksHold
		iss.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done(): // the fetch's time limit, or the key set's close
				return
			}
		}
		iss.mu.Lock()
		defer iss.mu.Unlock()
		if iss.cacheControl != "" {
			w.Header().Set("Cache-Control", iss.cacheControl)
		}
		if iss.jwksStatus != 0 {
			w.WriteHeader(iss.jwksStatus)
			return
		}
		var set jose.JSONWebKeySet
		for kid, k := range iss.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.key.Public(), KeyID: kid, Algorithm: string(k.alg), Use: "sig"})
		}
		// A symmetric key in the set is never used to verify.
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: []byte("a shared secret of thirty-two by"), KeyID: "hmac", Algorithm: "HS256"})
		json.NewEncoder(w).Encode(set)
	})
	iss.Server = httptest.NewServer(mux)
	t.Cleanup(iss.Close)
	return iss
}

func mustRSA(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (iss *testIssuer) add(kid string, alg jose.SignatureAlgorithm, key crypto.Signer) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.keys[kid] = testKey{alg, key}
}

func (iss *testIssuer) remove(kid string) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	delete(iss.keys, kid)
}

// set changes the issuer under its lock.
func (iss *testIssuer) set(f func()) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	f()
}

// inMemory is a client that reaches the issuer's handler without the network: inside a
// testing/synctest bubble, where connections are not durably blocked, time then moves as soon as
// every goroutine waits.
func (iss *testIssuer) inMemory() *http.Client {
	return &http.Client{Transport: handlerTransport{iss.Config.Handler}}
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

func (iss *testIssuer) key(kid string) testKey {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.keys[kid]
}

// claims are a valid token's: this issuer, the test resource, an hour to live, both scopes.
func (iss *testIssuer) claims(sub string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": iss.URL, "aud": []string{testResource}, "sub": sub, "client_id": "concierge",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": scopeSearch + " " + scopeProfile}
}

// sign mints a token over claims with any key and kid, typed at+jwt.
func sign(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	return signTyp(t, alg, key, kid, "at+jwt", claims)
}

// signTyp mints a token over claims with any key, kid and typ header (none when typ is nil).
func signTyp(t testing.TB, alg jose.SignatureAlgorithm, key any, kid string, typ any, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != nil {
		opts = opts.WithHeader("typ", typ)
	}
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// mintTyp signs claims with the issuer's key kid and typ as the typ header (none when typ is nil).
func (iss *testIssuer) mintTyp(t testing.TB, kid string, typ any, claims map[string]any) string {
	t.Helper()
	k := iss.key(kid)
	return signTyp(t, k.alg, k.key, kid, typ, claims)
}

// mint signs claims with the issuer's key kid.
func (iss *testIssuer) mint(t testing.TB, kid string, claims map[string]any) string {
	t.Helper()
	k := iss.key(kid)
	return sign(t, k.alg, k.key, kid, claims)
}

// unsigned is a token with "alg": "none", which no library call here would make.
func unsigned(claims map[string]any) string {
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": "rsa1"})
	p, _ := json.Marshal(claims)
	return enc.EncodeToString(h) + "." + enc.EncodeToString(p) + "."
}

// hmacWithPublicKey is the key-confusion attack: HS256 with the issuer's RSA public key (PEM) as the
// shared secret, naming the RSA key's kid.
func (iss *testIssuer) hmacWithPublicKey(t *testing.T, claims map[string]any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(iss.key("rsa1").key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return sign(t, jose.HS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), "rsa1", claims)
}
