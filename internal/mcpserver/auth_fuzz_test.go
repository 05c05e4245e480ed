package mcpserver

import (
	"context"
	"slices"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// A bearer token is untrusted bytes: whatever they are, verify never panics, and a token it accepts
// says what the issuer signed (the only way to be accepted is a signature by the issuer's key) and is
// typed an access token.
// go test ./mcpserver -run '^$' -fuzz FuzzVerifyToken
func FuzzVerifyToken(f *testing.F) {
	iss := newTestIssuer(f, false)
	a, err := newAuth(context.Background(), AuthConfig{Issuer: iss.URL, Resource: testResource})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(a.close)
	claims := iss.claims("user_criollo_heavy")
	for _, kid := range []string{"rsa1", "ec1", "ed1"} {
		f.Add(iss.mint(f, kid, claims))
	}
	f.Add(unsigned(claims))
	f.Add(iss.mintTyp(f, "rsa1", "JWT", claims))
	f.Add(iss.mintTyp(f, "ec1", nil, claims))
	f.Add(iss.mintTyp(f, "ed1", "application/AT+JWT", claims))
	f.Add(sign(f, jose.HS256, []byte("a shared secret of thirty-two by"), "hmac", claims))
	f.Add("eyJhbGciOiJSUzI1NiJ9.e30.")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		ti, reason := a.verifier.verify(context.Background(), token)
		if ti == nil {
			if reason == "" {
				t.Errorf("refused without a reason: %q", token)
			}
			return
		}
		if ti.UserID != "user_criollo_heavy" || !slices.Equal(ti.Scopes, []string{scopeSearch, scopeProfile}) {
			t.Errorf("accepted %q as %+v", token, ti)
		}
		tok, err := jwt.ParseSigned(token, algorithms)
		if err != nil || !accessTokenType(tok.Headers[0], false) {
			t.Errorf("accepted %q, not typed at+jwt", token)
		}
	})
}
