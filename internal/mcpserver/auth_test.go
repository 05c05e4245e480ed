package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	testResource = "https://ctool.test/mcp"
	testMetadata = `resource_metadata="https://ctool.test/.well-known/oauth-protected-resource/mcp"`
	invalidToken = `Bearer error="invalid_token", ` + testMetadata
)

// authServer is the real MCP handler with auth, over a database, on loopback.
type authServer struct {
	*httptest.Server
	auth *authorizer
	log  *syncBuffer
}

// newAuthServer serves sc (its search and metrics, when set) with the auth of c.
func newAuthServer(t *testing.T, iss *testIssuer, dbPath string, sc serverConfig, c AuthConfig) *authServer {
	t.Helper()
	c.Issuer, c.Resource = iss.URL, testResource
	a, err := newAuth(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	live := database.NewLive(dbPath)
	t.Cleanup(live.Close)
	finder, err := profile.NewFinder(live, "")
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	sc.live, sc.profiles, sc.timeout, sc.version, sc.log, sc.auth, sc.now = live, finder, 5*time.Second, "test", newEventLog(log), a, testNow
	srv := newServer(sc)
	ts := httptest.NewServer(handler(srv, a))
	t.Cleanup(ts.Close)
	return &authServer{ts, a, log}
}

// answer is one HTTP exchange with the MCP endpoint.
type answer struct {
	status     int
	challenge  string // WWW-Authenticate
	retryAfter string
	body       string
}

func (s *authServer) post(t *testing.T, token, body string) answer {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), resp.Header.Get("Retry-After"), string(b)}
}

func callBody(tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// toolText is a tools/call answer's text content and isError.
func toolText(t *testing.T, body string) (string, bool) {
	t.Helper()
	var msg struct {
		Result *struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.Result == nil || len(msg.Result.Content) != 1 {
		t.Fatalf("not a tool result: %s", body)
	}
	return msg.Result.Content[0].Text, msg.Result.IsError
}

func without(c map[string]any, names ...string) map[string]any {
	for _, n := range names {
		delete(c, n)
	}
	return c
}

func with(c map[string]any, kv ...any) map[string]any {
	for i := 0; i < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}

// Every failure class the resource server knows, through the real MCP handler over HTTP: the status,
// the WWW-Authenticate header exactly, the tool's answer, and the log's reason.
func TestAuthFailureClasses(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, ingesttest.Build(t, ingesttest.SampleInput(t)), serverConfig{}, AuthConfig{})
	me := "user_criollo_heavy"
	stores := callBody("search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores WHERE category = 'cafe' LIMIT 1"})
	own := callBody("get_user_profile", map[string]any{})
	now := time.Now()
	notFound := func(id string) string {
		return `{"error":"` + profile.MsgNotFound + id + `","kind":"not_found"}`
	}
	for _, tc := range []struct {
		name, token, body string
		status            int
		challenge         string
		reason            string // in the log
		text              string // the tool's answer: exact, or a prefix ending in "…"
		isError           bool
	}{
		{"no token", "", stores, 401, "Bearer " + testMetadata, "missing", "", false},
		{"malformed", "not.a.jwt", stores, 401, invalidToken, "signature", "", false},
		{"bad signature", sign(t, jose.RS256, mustRSA(t), "rsa1", iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"alg none", unsigned(iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"HS256 with the RSA public key", iss.hmacWithPublicKey(t, iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"HS256 with a published symmetric key", sign(t, jose.HS256, []byte("a shared secret of thirty-two by"), "hmac", iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"unknown kid", sign(t, jose.RS256, mustRSA(t), "nobody", iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"ES256 kid on an RS256 token", sign(t, jose.RS256, iss.key("rsa1").key, "ec1", iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"expired", iss.mint(t, "rsa1", with(iss.claims(me), "exp", now.Add(-2*time.Minute).Unix())), stores, 401, invalidToken, "expired", "", false},
		{"not yet valid", iss.mint(t, "rsa1", with(iss.claims(me), "nbf", now.Add(2*time.Minute).Unix())), stores, 401, invalidToken, "expired", "", false},
		{"no exp", iss.mint(t, "rsa1", without(iss.claims(me), "exp")), stores, 401, invalidToken, "expired", "", false},
		{"wrong iss", iss.mint(t, "rsa1", with(iss.claims(me), "iss", "https://other.example")), stores, 401, invalidToken, "audience", "", false},
		{"wrong aud", iss.mint(t, "rsa1", with(iss.claims(me), "aud", "https://other.example/mcp")), stores, 401, invalidToken, "audience", "", false},
		{"no aud", iss.mint(t, "rsa1", without(iss.claims(me), "aud")), stores, 401, invalidToken, "audience", "", false},
		{"typ JWT", iss.mintTyp(t, "rsa1", "JWT", iss.claims(me)), stores, 401, invalidToken, "type", "", false},
		{"no typ", iss.mintTyp(t, "rsa1", nil, iss.claims(me)), stores, 401, invalidToken, "type", "", false},
		{"typ JWT with a bad signature", signTyp(t, jose.RS256, mustRSA(t), "rsa1", "JWT", iss.claims(me)), stores, 401, invalidToken, "signature", "", false},
		{"typ application/at+jwt", iss.mintTyp(t, "ec1", "application/at+jwt", iss.claims(me)), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"typ AT+JWT", iss.mintTyp(t, "ed1", "AT+JWT", iss.claims(me)), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"missing scope", iss.mint(t, "rsa1", with(iss.claims(me), "scope", scopeSearch)), own, 403,
			`Bearer error="insufficient_scope", scope="ctool:profile", ` + testMetadata, "scope", "", false},
		{"missing search scope", iss.mint(t, "ec1", with(iss.claims(me), "scope", scopeProfile)), stores, 403,
			`Bearer error="insufficient_scope", scope="ctool:search", ` + testMetadata, "scope", "", false},
		{"batch", iss.mint(t, "rsa1", iss.claims(me)), "[" + stores + "]", 400, "", "batch", "", false},
		{"scopes joined by a tab", iss.mint(t, "rsa1", with(iss.claims(me), "scope", scopeSearch+"\t"+scopeProfile)), stores, 403,
			`Bearer error="insufficient_scope", scope="ctool:search", ` + testMetadata, "scope", "", false},
		{"scopes joined by a no-break space", iss.mint(t, "rsa1", with(iss.claims(me), "scope", scopeSearch+"\u00a0"+scopeProfile)), own, 403,
			`Bearer error="insufficient_scope", scope="ctool:profile", ` + testMetadata, "scope", "", false},
		{"a second name in another case", iss.mint(t, "rsa1", with(iss.claims(me), "scope", scopeSearch)),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_user_profile","Name":"search_stores","arguments":{}}}`, 403,
			`Bearer error="insufficient_scope", scope="ctool:profile", ` + testMetadata, "scope", "", false},

		{"RS256", iss.mint(t, "rsa1", iss.claims(me)), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"ES256", iss.mint(t, "ec1", iss.claims(me)), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"EdDSA", iss.mint(t, "ed1", iss.claims(me)), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"scp list", iss.mint(t, "rsa1", with(without(iss.claims(me), "scope"), "scp", []string{scopeSearch})), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"expired within the skew", iss.mint(t, "rsa1", with(iss.claims(me), "exp", now.Add(-30*time.Second).Unix())), stores, 200, "", "", `{"results":[{"store_name":…`, false},
		{"own profile", iss.mint(t, "rsa1", iss.claims(me)), own, 200, "", "", `{"profile_id":"user_criollo_heavy",…`, false},
		{"own profile by id", iss.mint(t, "rsa1", iss.claims(me)), callBody("get_user_profile", map[string]any{"profile_id": " " + me}), 200, "", "", `{"profile_id":"user_criollo_heavy",…`, false},
		{"another user's profile", iss.mint(t, "rsa1", iss.claims(me)), callBody("get_user_profile", map[string]any{"profile_id": "user_family_weekend"}), 200, "", "", notFound("user_family_weekend"), true},
		{"an unknown id", iss.mint(t, "rsa1", iss.claims(me)), callBody("get_user_profile", map[string]any{"profile_id": "user_nobody"}), 200, "", "", notFound("user_nobody"), true},
		{"a subject with no profile", iss.mint(t, "rsa1", iss.claims("user_nobody")), own, 200, "", "", notFound("user_nobody"), true},
		{"a token without the claim", iss.mint(t, "rsa1", without(iss.claims(me), "sub")), own, 200, "", "",
			`{"error":"このトークンにはユーザーのID（sub）がないため、プロファイルを返せません","kind":"refused"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.log.String())
			got := s.post(t, tc.token, tc.body)
			if got.status != tc.status || got.challenge != tc.challenge {
				t.Fatalf("status %d, WWW-Authenticate %q; want %d, %q\n%s", got.status, got.challenge, tc.status, tc.challenge, got.body)
			}
			line := s.log.String()[before:]
			if tc.reason != "" && !strings.Contains(line, `"refusal":"`+tc.reason+`"`) {
				t.Errorf("log %q lacks refusal %q", line, tc.reason)
			}
			if strings.Contains(line, me) || tc.token != "" && strings.Contains(line, tc.token) {
				t.Errorf("log names the subject or the token: %s", line)
			}
			if tc.status != 200 {
				return
			}
			text, isError := toolText(t, got.body)
			var compact bytes.Buffer
			if json.Compact(&compact, []byte(text)) == nil {
				text = compact.String()
			}
			if prefix, ok := strings.CutSuffix(tc.text, "…"); ok && !strings.HasPrefix(text, prefix) || !ok && text != tc.text || isError != tc.isError {
				t.Errorf("answer %s (isError %v), want %s (%v)", text, isError, tc.text, tc.isError)
			}
			if tc.token != "" && !strings.Contains(line, `"subject":"`) {
				t.Errorf("log %q has no subject", line)
			}
		})
	}
}

// The typ header (RFC 9068 section 4, RFC 7515 section 4.1.9), with and without AllowJWTType.
func TestAccessTokenType(t *testing.T) {
	for _, tc := range []struct {
		typ             any // nil: no typ header
		strict, allowed bool
	}{
		{"at+jwt", true, true},
		{"AT+JWT", true, true},
		{"application/at+jwt", true, true},
		{"Application/At+Jwt", true, true},
		{"JWT", false, true},
		{"jwt", false, true},
		{"application/jwt", false, true},
		{nil, false, true},
		{"", false, false},
		{"at+jwt ", false, false},
		{"application/", false, false},
		{"application/application/at+jwt", false, false},
		{"id_token+jwt", false, false},
		{"at+jwt; charset=utf-8", false, false},
		{"aт+jwt", false, false}, // a Cyrillic т
		{"JWS", false, false},
		{1, false, false},
		{[]string{"at+jwt"}, false, false},
	} {
		h := jose.Header{ExtraHeaders: map[jose.HeaderKey]any{}}
		if tc.typ != nil {
			h.ExtraHeaders[jose.HeaderType] = tc.typ
		}
		if got := accessTokenType(h, false); got != tc.strict {
			t.Errorf("typ %#v: %v, want %v", tc.typ, got, tc.strict)
		}
		if got := accessTokenType(h, true); got != tc.allowed {
			t.Errorf("typ %#v with AllowJWTType: %v, want %v", tc.typ, got, tc.allowed)
		}
	}
}

// With AllowJWTType, a token typed JWT or not typed at all is accepted; another type still is not.
func TestAuthAllowJWTType(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{AllowJWTType: true})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		typ  any
		want int
	}{{"JWT", 200}, {nil, 200}, {"at+jwt", 200}, {"id_token+jwt", 401}, {"JOSE", 401}} {
		got := s.post(t, iss.mintTyp(t, "rsa1", tc.typ, iss.claims("u")), list)
		if got.status != tc.want {
			t.Errorf("typ %v: %d %s, want %d", tc.typ, got.status, got.body, tc.want)
		}
		if tc.want == 401 && (got.challenge != invalidToken || !strings.Contains(s.log.String(), `"refusal":"type"`)) {
			t.Errorf("typ %v: WWW-Authenticate %q, log %s", tc.typ, got.challenge, s.log)
		}
	}
}

// tools/list shows only the tools the token may call, as private to the caller.
func TestAuthToolsListFiltered(t *testing.T) {
	iss := newTestIssuer(t, true) // OpenID discovery only
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{ProfileClaim: "profile"})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		scope string
		want  []string
	}{
		{scopeSearch + " " + scopeProfile, []string{"get_user_profile", "search_events", "search_products", "search_stores"}},
		{scopeSearch, []string{"search_events", "search_products", "search_stores"}},
		{scopeProfile, []string{"get_user_profile"}},
		{"openid", []string{}},
	} {
		got := s.post(t, iss.mint(t, "ed1", with(iss.claims("u"), "scope", tc.scope)), list)
		var msg struct {
			Result struct {
				Tools []struct {
					Name        string
					Description string
					InputSchema map[string]any
				}
				CacheScope string
			}
		}
		if err := json.Unmarshal([]byte(got.body), &msg); err != nil || got.status != 200 {
			t.Fatalf("%s: %d %s", tc.scope, got.status, got.body)
		}
		names := []string{}
		for _, tool := range msg.Result.Tools {
			names = append(names, tool.Name)
			if tool.Name == "get_user_profile" {
				if _, required := tool.InputSchema["required"]; required || !strings.Contains(tool.Description, "クレーム profile") {
					t.Errorf("get_user_profile with auth: schema %v, description does not name the claim", tool.InputSchema)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.want) || msg.Result.CacheScope != "private" {
			t.Errorf("scope %q: tools %v, cacheScope %q; want %v, private", tc.scope, names, msg.Result.CacheScope, tc.want)
		}
	}
}

// Each tool handler checks the scope again from the TokenInfo the SDK hands it: a call that reaches
// the server without the HTTP check (here in memory, with no token at all) is refused.
func TestAuthHandlerChecksScopeAgain(t *testing.T) {
	iss := newTestIssuer(t, false)
	a, err := newAuth(context.Background(), AuthConfig{Issuer: iss.URL, Resource: testResource})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	live := database.NewLive("/nonexistent/ctool.duckdb")
	t.Cleanup(live.Close)
	finder, _ := profile.NewFinder(live, "")
	cs := connect(t, newServer(serverConfig{live: live, profiles: finder, timeout: time.Second, auth: a}))
	for tool, scope := range map[string]string{"search_stores": scopeSearch, "get_user_profile": scopeProfile} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"error":"this token does not grant ` + scope + `","kind":"refused"}`
		if got := res.Content[0].(*mcp.TextContent).Text; got != want || !res.IsError {
			t.Errorf("%s: %s, want %s", tool, got, want)
		}
	}
}

// The protected resource metadata (RFC 9728) is served without a token, at both paths.
func TestAuthProtectedResourceMetadata(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{})
	want := fmt.Sprintf(`{"resource":%q,"authorization_servers":[%q],"scopes_supported":["ctool:search","ctool:profile"],"bearer_methods_supported":["header"],"resource_name":"ctool: Concierge data"}`, testResource, iss.URL)
	for _, path := range []string{metadataPath + Path, metadataPath} {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != want {
			t.Errorf("%s: %d %s\nwant %s", path, resp.StatusCode, b, want)
		}
	}
}

// A verified token is kept until it expires: the next call does not check the signature again.
func TestAuthVerifiedTokenIsCached(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tok := iss.mint(t, "rsa1", iss.claims("u"))
	if got := s.post(t, tok, list); got.status != 200 {
		t.Fatalf("%d %s", got.status, got.body)
	}
	ks := s.auth.verifier.keys
	ks.mu.Lock()
	ks.keys = nil // no key verifies anything now
	ks.mu.Unlock()
	if got := s.post(t, tok, list); got.status != 200 {
		t.Errorf("the cached token: %d", got.status)
	}
	if got := s.post(t, iss.mint(t, "rsa1", iss.claims("v")), list); got.status != 401 {
		t.Errorf("a new token without keys: %d", got.status)
	}
	s.auth.verifier.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if got := s.post(t, tok, list); got.status != 401 || got.challenge != invalidToken {
		t.Errorf("the cached token past its exp: %d %q", got.status, got.challenge)
	}
}

// blockingSearch holds each search until released, and counts them.
type blockingSearch struct {
	mu      sync.Mutex
	started int
	entered chan struct{}
	release chan struct{}
}

func (b *blockingSearch) Query(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
	b.mu.Lock()
	b.started++
	b.mu.Unlock()
	b.entered <- struct{}{}
	<-b.release
	return &query.Result{Dataset: d}, nil
}

// Past --max-calls-per-user calls in flight, or past the token bucket, a caller gets 429 and
// Retry-After; another caller is unaffected; unauthenticated requests never reach a search.
func TestAuthFairShare(t *testing.T) {
	iss := newTestIssuer(t, false)
	b := &blockingSearch{entered: make(chan struct{}, 10), release: make(chan struct{})}
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{search: b.Query}, AuthConfig{MaxInFlight: 2, Rate: 1, burst: 4})
	call := callBody("search_stores", map[string]any{"sql_query": "SELECT 1"})
	alice, bob := iss.mint(t, "rsa1", iss.claims("alice")), iss.mint(t, "ec1", iss.claims("bob"))

	for range 5 {
		if got := s.post(t, "", call); got.status != 401 {
			t.Fatalf("no token: %d", got.status)
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { s.post(t, alice, call) })
		<-b.entered
	}
	got := s.post(t, alice, call)
	if got.status != 429 || got.retryAfter != "1" || !strings.Contains(s.log.String(), `"refusal":"rate"`) {
		t.Errorf("a third call in flight: %d, Retry-After %q", got.status, got.retryAfter)
	}
	wg.Go(func() { s.post(t, bob, call) }) // another subject has a share of their own
	<-b.entered
	close(b.release)
	wg.Wait()
	// Alice has used 2 of her burst of 4 (the call refused for calls in flight took none): two more,
	// then 429.
	for range 2 {
		if got := s.post(t, alice, call); got.status != 200 {
			t.Errorf("the burst's last calls: %d", got.status)
		}
	}
	if got := s.post(t, alice, call); got.status != 429 || got.retryAfter != "1" {
		t.Errorf("past the burst: %d, Retry-After %q", got.status, got.retryAfter)
	}
	if b.started != 5 {
		t.Errorf("%d searches ran, want 5 (none unauthenticated)", b.started)
	}
}

// Scope tokens are separated by U+0020 alone (RFC 6749 section 3.3): any other white space or control
// character is part of a token, which then names no scope ctool knows.
func TestScopes(t *testing.T) {
	for _, tc := range []struct {
		scope string
		scp   string
		want  []string
	}{
		{"ctool:search ctool:profile", "", []string{"ctool:search", "ctool:profile"}},
		{" ctool:search  ctool:profile ", "", []string{"ctool:search", "ctool:profile"}},
		{"ctool:search\tctool:profile", "", []string{"ctool:search\tctool:profile"}},
		{"ctool:search\u00a0ctool:profile", "", []string{"ctool:search\u00a0ctool:profile"}},
		{"ctool:search\nctool:profile", "", []string{"ctool:search\nctool:profile"}},
		{"ctool:search\rctool:profile", "", []string{"ctool:search\rctool:profile"}},
		{"ctool:search\u3000ctool:profile", "", []string{"ctool:search\u3000ctool:profile"}},
		{"ctool:search\u0000ctool:profile", "", []string{"ctool:search\u0000ctool:profile"}},
		{"ctool:search\t", "", []string{"ctool:search\t"}},
		{"", `["ctool:search", "ctool:profile"]`, []string{"ctool:search", "ctool:profile"}},
		{"", `["ctool:search ctool:profile"]`, []string{"ctool:search ctool:profile"}},
		{"", `"ctool:search ctool:profile"`, []string{"ctool:search", "ctool:profile"}},
		{"", `"ctool:search\tctool:profile"`, []string{"ctool:search\tctool:profile"}},
		{"", ``, nil},
	} {
		got := scopes(claims{Scope: tc.scope, SCP: json.RawMessage(tc.scp)})
		if !slices.Equal(got, tc.want) {
			t.Errorf("scope %q, scp %s: %q, want %q", tc.scope, tc.scp, got, tc.want)
		}
		for _, scope := range []string{scopeSearch, scopeProfile} {
			if granted := hasScope(&auth.TokenInfo{Scopes: got}, scope); granted != slices.Contains(tc.want, scope) {
				t.Errorf("scope %q, scp %s: %s granted %v", tc.scope, tc.scp, scope, granted)
			}
		}
	}
}

func TestFairShare(t *testing.T) {
	f := newFairShare(2, 10, 3)
	now := time.Unix(1000, 0)
	r1, _ := f.enter("a", now)
	r2, _ := f.enter("a", now)
	if r, wait := f.enter("a", now); r != nil || wait != time.Second {
		t.Errorf("a third in flight: admitted %v, wait %v", r != nil, wait)
	}
	r1()
	r3, _ := f.enter("a", now)
	if r3 == nil {
		t.Fatal("after a release: refused")
	}
	r2()
	r3()
	if r, wait := f.enter("a", now); r != nil || wait != 100*time.Millisecond {
		t.Errorf("past the burst of 3 at 10/s: admitted %v, wait %v", r != nil, wait)
	}
	if r, _ := f.enter("a", now.Add(100*time.Millisecond)); r == nil {
		t.Error("a token later: refused")
	}
	if r, _ := f.enter("b", now); r == nil {
		t.Error("another key: refused")
	}
}

func TestCheckIssuer(t *testing.T) {
	for issuer, ok := range map[string]bool{
		"https://as.example": true, "https://as.example/tenant1": true, "http://127.0.0.1:8080": true,
		"http://localhost:3000/oidc": true, "http://[::1]:9": true,
		"http://as.example": false, "as.example": false, "https://as.example?x=1": false, "https://as.example#f": false,
		"https://user@as.example": false, "ftp://as.example": false, "": false,
	} {
		if err := checkIssuer(issuer); (err == nil) != ok {
			t.Errorf("CheckIssuer(%q) = %v", issuer, err)
		}
	}
}

func TestDiscoveryURLs(t *testing.T) {
	for issuer, want := range map[string][]string{
		"https://as.example":  {"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"},
		"https://as.example/": {"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"},
		"https://as.example/tenant1": {"https://as.example/.well-known/oauth-authorization-server/tenant1",
			"https://as.example/.well-known/openid-configuration/tenant1", "https://as.example/tenant1/.well-known/openid-configuration"},
	} {
		if got := discoveryURLs(issuer); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", issuer, got, want)
		}
	}
}

// Discovery tries each metadata URL in turn and uses the first document that names the issuer
// (RFC 8414 section 3.3, OpenID Connect Discovery section 4.3): a document naming another issuer is
// passed over, not fatal. A server that cannot find the keys does not start, and says what to check.
// In the table, "{}" stands for the issuer's server.
func TestDiscovery(t *testing.T) {
	const (
		rfc8414  = "/.well-known/oauth-authorization-server"
		oidc     = "/.well-known/openid-configuration"
		notFound = ": 404 Not Found"
	)
	for _, tc := range []struct {
		name    string
		issuer  string
		docs    map[string]string // path → the issuer its document names
		jwksURI string            // what the documents name as jwks_uri; "" for {}/jwks<the document's path>
		jwks    int               // the key set's status; 0 for 200 and the keys
		used    string            // the path of the document whose jwks_uri serves the keys; "" for none
		err     string
		hint    string
	}{
		{name: "RFC 8414 first", issuer: "{}", docs: map[string]string{rfc8414: "{}", oidc: "{}"}, used: rfc8414},
		{name: "OpenID Connect only", issuer: "{}", docs: map[string]string{oidc: "{}"}, used: oidc},
		{name: "a path: the well-known segment inserted", issuer: "{}/realms/hills",
			docs: map[string]string{rfc8414 + "/realms/hills": "{}/realms/hills"}, used: rfc8414 + "/realms/hills"},
		{name: "Okta custom authorization server: the organisation's document first", issuer: "{}/oauth2/default",
			docs: map[string]string{rfc8414 + "/oauth2/default": "{}", oidc + "/oauth2/default": "{}", "/oauth2/default" + oidc: "{}/oauth2/default"},
			used: "/oauth2/default" + oidc},
		{name: "Entra ID v1: a trailing slash, another issuer first", issuer: "{}/tenant/",
			docs: map[string]string{oidc + "/tenant": "{}/tenant/v2.0", "/tenant" + oidc: "{}/tenant/"}, used: "/tenant" + oidc},
		{name: "every document names another issuer", issuer: "{}/realm", docs: map[string]string{rfc8414 + "/realm": "{}/realm/", "/realm" + oidc: "{}/realm/"},
			err: `--auth-issuer {}/realm: no authorization server metadata for this issuer: {}` + rfc8414 + `/realm names issuer "{}/realm/"; ` +
				"{}" + oidc + "/realm" + notFound + `; {}/realm` + oidc + ` names issuer "{}/realm/"`,
			hint: "--auth-issuer {}/realm/, the issuer its metadata names, if its tokens are the ones to accept (iss must match exactly)"},
		{name: "two other issuers named", issuer: "{}/a", docs: map[string]string{rfc8414 + "/a": "{}/b", "/a" + oidc: "{}/c"},
			err: `--auth-issuer {}/a: no authorization server metadata for this issuer: {}` + rfc8414 + `/a names issuer "{}/b"; ` +
				"{}" + oidc + "/a" + notFound + `; {}/a` + oidc + ` names issuer "{}/c"`,
			hint: "curl -s {}/a" + oidc + " | jq .issuer from this machine: --auth-issuer is that value, exactly as the tokens' iss has it"},
		{name: "nothing answers", issuer: "{}",
			err:  "--auth-issuer {}: no authorization server metadata for this issuer: {}" + rfc8414 + notFound + "; {}" + oidc + notFound,
			hint: "curl -s {}" + oidc + " | jq .issuer from this machine: --auth-issuer is that value, exactly as the tokens' iss has it"},
		{name: "a key set over plain http elsewhere", issuer: "{}", docs: map[string]string{rfc8414: "{}"}, jwksURI: "http://keys.example/jwks",
			err:  `--auth-issuer {}: {}` + rfc8414 + `: jwks_uri "http://keys.example/jwks" is not https (plain http only on a loopback address)`,
			hint: "curl -s {}" + rfc8414 + " | jq .jwks_uri: the issuer must publish its keys at an https URL"},
		{name: "the key set fails", issuer: "{}", docs: map[string]string{oidc: "{}"}, jwks: http.StatusServiceUnavailable,
			err:  "--auth-issuer {}: its key set: {}/jwks" + oidc + ": 503 Service Unavailable",
			hint: "curl -s {}/jwks" + oidc + " from this machine: the issuer's key set must answer 200 with its keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			mux := http.NewServeMux()
			srv := httptest.NewServer(mux)
			defer srv.Close()
			here := func(s string) string { return strings.ReplaceAll(s, "{}", srv.URL) }
			for path, names := range tc.docs {
				jwks := cmp.Or(tc.jwksURI, srv.URL+"/jwks"+path)
				mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
					json.NewEncoder(w).Encode(map[string]string{"issuer": here(names), "jwks_uri": jwks})
				})
			}
			mux.HandleFunc("/jwks/", func(w http.ResponseWriter, r *http.Request) {
				if tc.jwks != 0 {
					w.WriteHeader(tc.jwks)
					return
				}
				json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k", Use: "sig"}}})
			})
			a, err := newAuth(context.Background(), AuthConfig{Issuer: here(tc.issuer), Resource: testResource})
			if err != nil {
				var e *fault.Error
				if !errors.As(err, &e) || e.Kind != fault.KindUsage || e.Message != here(tc.err) || e.Hint != here(tc.hint) {
					t.Fatalf("NewAuth: %#v\nwant a usage error\n%s\nTry: %s", err, here(tc.err), here(tc.hint))
				}
				return
			}
			defer a.close()
			if got, want := a.verifier.keys.uri, srv.URL+"/jwks"+tc.used; tc.err != "" || got != want {
				t.Errorf("the keys from %s, want %s (err %q)", got, want, here(tc.err))
			}
		})
	}
}

// An issuer a token's iss could not safely name is refused before any request.
func TestNewAuthRefusesAPlainHTTPIssuer(t *testing.T) {
	_, err := newAuth(context.Background(), AuthConfig{Issuer: "http://as.example", Resource: testResource})
	if want := `--auth-issuer: "http://as.example" is not https (plain http only on a loopback address)`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// The per-request cost of auth with a cached token, in front of a handler that does nothing:
// go test ./mcpserver -run '^$' -bench AuthCachedToken
func BenchmarkAuthCachedToken(b *testing.B) {
	iss := newTestIssuer(b, false)
	a, err := newAuth(context.Background(), AuthConfig{Issuer: iss.URL, Resource: testResource, Rate: 1e9, MaxInFlight: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.close)
	nothing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	body := callBody("search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores WHERE category = 'cafe'"})
	token := iss.mint(b, "ec1", iss.claims("u"))
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{{"without", nothing}, {"with", a.protect(nothing)}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("POST", Path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				bc.h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// With auth, the server's instructions say get_user_profile is the caller's own profile, not any id's.
func TestAuthInstructionsSayOwnProfile(t *testing.T) {
	iss := newTestIssuer(t, false)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{}, AuthConfig{ProfileClaim: "profile"})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	got := s.post(t, iss.mint(t, "rsa1", iss.claims("u")), init)
	var msg struct{ Result struct{ Instructions string } }
	if err := json.Unmarshal([]byte(got.body), &msg); err != nil || got.status != 200 {
		t.Fatalf("initialize: %d %s", got.status, got.body)
	}
	if msg.Result.Instructions != Instructions(true, query.Facts{}, testNow()) || !strings.Contains(msg.Result.Instructions, "本人のプロファイルだけ") {
		t.Errorf("instructions with auth:\n%s\nwant Instructions(true)", msg.Result.Instructions)
	}
	if Instructions(true, query.Facts{}, testNow()) == Instructions(false, query.Facts{}, testNow()) {
		t.Error("the instructions with and without auth are the same")
	}
}

// The refusals reach the metrics by their reason words, each of which starts at zero: the words
// docs/mcp.md lists, exactly.
func TestAuthRefusalsCounted(t *testing.T) {
	iss := newTestIssuer(t, false)
	m := newMetrics([]string{"search_stores"}, true)
	s := newAuthServer(t, iss, "/nonexistent/ctool.duckdb", serverConfig{metrics: m}, AuthConfig{ProfileClaim: "sub"})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	s.post(t, "", list)                                                                                   // missing
	s.post(t, "not.a.jwt", list)                                                                          // signature (malformed)
	s.post(t, iss.mint(t, "rsa1", with(iss.claims("u"), "exp", time.Now().Add(-time.Hour).Unix())), list) // expired
	s.post(t, iss.mint(t, "rsa1", with(iss.claims("u"), "scope", scopeSearch)), callBody("get_user_profile", nil))
	fams := scrape(t, m)
	want := map[string]float64{"missing": 1, "expired": 1, "audience": 0, "signature": 1, "type": 0, "scope": 1, "rate": 0, "batch": 0}
	for reason, n := range want {
		if got := value(fams, "ctool_auth_refusals_total", map[string]string{"reason": reason}); got != n {
			t.Errorf("ctool_auth_refusals_total{reason=%q} = %v, want %v", reason, got, n)
		}
	}
	if n := len(fams["ctool_auth_refusals_total"].GetMetric()); n != len(want) {
		t.Errorf("%d series of ctool_auth_refusals_total, want %d", n, len(want))
	}
	if n := len(reasons); n != len(want) {
		t.Errorf("%d reasons, want %d", n, len(want))
	}
}
