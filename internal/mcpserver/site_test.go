package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
)

// Two sites behind one issuer: each at /mcp/NAME with its own build, its own protected resource
// metadata and audience (a token for one is refused by the other), and the one without profiles
// answering so.
func TestSitesOverAuth(t *testing.T) {
	iss := newTestIssuer(t, false)
	const base = "https://ctool.test"
	a, err := newAuth(context.Background(), AuthConfig{Issuer: iss.URL, Resource: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	input := ingesttest.SampleInput(t)
	builds := map[string]string{}
	var sites []*site
	for _, name := range []string{"azabu", "shiba"} {
		live := database.NewLive(ingesttest.Build(t, input))
		t.Cleanup(live.Close)
		finder, err := profile.NewFinder(live, "")
		if err != nil {
			t.Fatal(err)
		}
		finder.None = name == "shiba"
		s := &site{Site: Site{Name: name, NoProfiles: finder.None}, live: live, finder: finder}
		if err := s.open(context.Background()); err != nil {
			t.Fatal(err)
		}
		builds[name] = s.build
		s.auth = a.forSite(SiteResource(base, name), s.place)
		s.srv = newServer(serverConfig{live: live, profiles: finder, timeout: 5 * time.Second, version: "test", auth: s.auth, now: testNow})
		sites = append(sites, s)
	}
	if builds["azabu"] == builds["shiba"] {
		t.Fatal("the two builds have one id")
	}
	ts := httptest.NewServer(sitesHandler(sites))
	defer ts.Close()

	post := func(path, token, body string) answer {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
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
	search := callBody("search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores LIMIT 1"})
	for _, name := range []string{"azabu", "shiba"} {
		resource := base + "/mcp/" + name
		resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if meta.Resource != resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != iss.URL {
			t.Errorf("%s: metadata %+v", name, meta)
		}
		want := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp/` + name + `"`
		if got := post("/mcp/"+name, "", search); got.status != 401 || got.challenge != want {
			t.Errorf("%s without a token: %d %q, want 401 %q", name, got.status, got.challenge, want)
		}
		token := iss.mint(t, "ec1", with(iss.claims("user_criollo_heavy"), "aud", []string{resource}))
		got := post("/mcp/"+name, token, search)
		if got.status != 200 || !strings.Contains(got.body, `"ctool/build":"`+builds[name]+`"`) {
			t.Errorf("%s with its own token: %d %s", name, got.status, got.body)
		}
		other := map[string]string{"azabu": "shiba", "shiba": "azabu"}[name]
		if got := post("/mcp/"+other, token, search); got.status != 401 || !strings.Contains(got.challenge, `error="invalid_token"`) {
			t.Errorf("%s's token at %s: %d %q, want 401 invalid_token", name, other, got.status, got.challenge)
		}
	}
	if resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp"); err != nil || resp.StatusCode != 404 {
		t.Errorf("a server of sites has no resource at /mcp: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	token := iss.mint(t, "ec1", with(iss.claims("user_criollo_heavy"), "aud", []string{base + "/mcp/shiba"}, "profile_id", "user_criollo_heavy"))
	got := post("/mcp/shiba", token, callBody("get_user_profile", map[string]any{}))
	text, isErr := toolText(t, got.body)
	want, _ := (&fault.Error{Kind: fault.KindNotFound, Message: profile.MsgNoProfiles, Hint: profile.HintNoProfiles}).MarshalJSON()
	if !isErr || text != string(want) {
		t.Errorf("get_user_profile on a site without profiles: %s", got.body)
	}
}

// Sites need HTTP, and with auth the server's base URL as --resource.
func TestSitesConfig(t *testing.T) {
	sites := []Site{{Name: "azabu", DB: "a.duckdb"}}
	for _, tc := range []struct {
		c         Config
		err, hint string
	}{
		{Config{Sites: sites}, "--site applies only with --http: a stdio server has one client, which started it, and serves one build", ""},
		{Config{Sites: sites, HTTP: "127.0.0.1:0", Auth: &AuthConfig{Issuer: "https://as.example", Resource: "https://ctool.example/mcp/"}},
			"--resource https://ctool.example/mcp/: with --site, give the server's base URL; each site's resource is it and /mcp/NAME", "--resource https://ctool.example"},
		{Config{Sites: sites, HTTP: "127.0.0.1:0", Auth: &AuthConfig{Issuer: "https://as.example", Resource: "https://ctool.example"}}, "", ""},
	} {
		err := tc.c.check()
		e := fault.Explain(err)
		if (tc.err == "") != (err == nil) || (err != nil && (e.Kind != fault.KindUsage || e.Message != tc.err || e.Hint != tc.hint)) {
			t.Errorf("%+v: %v (%q), want %q %q", tc.c, err, e, tc.err, tc.hint)
		}
	}
	if got := SiteResource("https://ctool.example/", "azabu"); got != "https://ctool.example/mcp/azabu" {
		t.Errorf("SiteResource = %s", got)
	}
}
