package main

// End-to-end tests of builds published to S3 and followed by the real binary: `ctool publish` to a
// real S3 server (versitygw, internal/publish/s3test), `ctool mcp --follow` serving it, a new build
// swapped in while a call is in flight, a build of another schema version refused, the store down at
// start, and several sites in one server, with OAuth. No assertion depends on how fast anything is:
// every wait is bounded by mcpWait only to keep a broken build from hanging the test.
//
//	go test ./cmd/ctool -run 'TestFollow|TestSites'

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/internal/publish/s3test"
	"github.com/azabudai/ctool/internal/sites"
	"github.com/azabudai/ctool/migrations"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// server is a `ctool mcp` or `ctool console` child process and what its log said at start.
type server struct {
	cmd     *exec.Cmd
	stderr  *syncBuffer
	start   map[string]any // the line with "serving"
	exited  chan struct{}
	waitErr error
}

// startServer starts `ctool args...` and waits for the log line that says where it serves (with
// --follow, the follower's first line comes before it).
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command("ctool", args...)
	cmd.Env = append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE=")
	s := &server{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	s.stderr.waitFor(t, "the serving line", func(w string) bool {
		select {
		case <-s.exited:
			t.Fatalf("ctool %s exited: %v\n%s", strings.Join(args, " "), s.waitErr, w)
		default:
		}
		for _, line := range strings.Split(w, "\n") {
			if strings.Contains(line, `"serving":`) && json.Unmarshal([]byte(line), &s.start) == nil {
				return true
			}
		}
		return false
	})
	return s
}

// stop sends SIGINT and waits for exit 0.
func (s *server) stop(t *testing.T) {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
		if s.waitErr != nil {
			t.Errorf("%v after SIGINT: %v\n%s", s.cmd.Args, s.waitErr, s.stderr)
		}
	case <-time.After(mcpWait):
		s.cmd.Process.Kill()
		t.Errorf("%v did not stop on SIGINT", s.cmd.Args)
	}
}

func (s *server) field(name string) string { v, _ := s.start[name].(string); return v }

// search calls search_stores at url (with token, if any) and returns the build its _meta names and
// the rows' text.
func search(t *testing.T, url, token, sql string) (build, text string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_stores","arguments":{"sql_query":%q}}}`, sql)
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", url, err)
		return "", ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result struct {
			Meta    map[string]string `json:"_meta"`
			Content []struct{ Text string }
			IsError bool
		}
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &msg) != nil || msg.Result.IsError || len(msg.Result.Content) != 1 {
		t.Errorf("search at %s: HTTP %d %s", url, resp.StatusCode, b)
		return "", ""
	}
	return msg.Result.Meta["ctool/build"], msg.Result.Content[0].Text
}

// getBody is a GET's status and body.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// healthOf reads /healthz.
func healthOf(t *testing.T, base string) sites.Health {
	t.Helper()
	code, body := getBody(t, base+"/healthz")
	var h sites.Health
	if code != 200 || json.Unmarshal([]byte(body), &h) != nil {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	return h
}

// metric is the value of the series of /metrics whose line starts with prefix, -1 if none.
func metric(t *testing.T, base, prefix string) float64 {
	t.Helper()
	_, body := getBody(t, base+"/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, prefix+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// eventually waits until cond holds, looking again every 50 ms.
func eventually(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for deadline := start.Add(mcpWait); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, mcpWait)
		}
	}
	return time.Since(start)
}

// runChild runs ctool to the end and returns its exit status and output.
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("ctool", args...)
	cmd.Env = append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func recordOf(t *testing.T, path string) map[string]string {
	t.Helper()
	rec, err := database.ReadRecord(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// olderSchema is a copy of the build at path that records the schema version before this ctool's,
// as a build made by an older ctool does, published to url (ctool publish refuses it) with its manifest.
func publishOlderSchema(t *testing.T, url, path string) string {
	t.Helper()
	old := filepath.Join(t.TempDir(), "old.duckdb")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", old)
	if err != nil {
		t.Fatal(err)
	}
	version := migrations.Version(migrations.Main) - 1
	_, err = db.Exec(`UPDATE ctool_meta.build SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(version))
	if err == nil {
		_, err = db.Exec(`UPDATE ctool_meta.build SET value = value || '-old' WHERE key = 'build_id'`)
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	rec := recordOf(t, old)
	created, _ := time.Parse(time.RFC3339, rec[database.BuildTime])
	ctx := context.Background()
	st, err := publish.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	m := publish.Manifest{BuildID: rec[database.BuildID], SchemaVersion: version, RowCounts: map[string]int64{}, CreatedAt: created, CtoolVersion: "old"}
	if _, err := publish.Publish(ctx, st, old, m); err != nil {
		t.Fatal(err)
	}
	return rec[database.BuildID]
}

// Published to S3 and followed: the first build served, a second one swapped in while a call runs on
// the first (which finishes there), a build of an older schema refused with the last one kept, then
// the store down at start, with and without a cache.
func TestFollowS3(t *testing.T) {
	srv := s3test.Start(t) // sets the AWS environment the children inherit; not parallel
	url := srv.URL("builds")
	input := ingesttest.SampleInput(t)
	a, b := ingesttest.Build(t, input), ingesttest.Build(t, input)
	idA, idB := recordOf(t, a)[database.BuildID], recordOf(t, b)[database.BuildID]
	if code, out := runChild(t, "publish", "--db", a, url); code != 0 || !strings.Contains(out, "published build "+idA+" ") {
		t.Fatalf("ctool publish: exit %d\n%s", code, out)
	}
	cache := t.TempDir()
	s := startServer(t, "mcp", "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--timeout", "1m",
		"--follow", url, "--follow-interval", "1s", "--cache", cache)
	mcpURL, mon := s.field("serving"), s.field("metrics")
	if s.field("build") != idA {
		t.Fatalf("start line %v, want build %s", s.start, idA)
	}
	if got, _ := search(t, mcpURL, "", "SELECT count(*) AS n FROM stores"); got != idA {
		t.Fatalf("first call read build %q, want %s", got, idA)
	}

	// A call in flight when the new build lands finishes on its build; the calls after read the new one.
	var wg sync.WaitGroup
	var slowBuild, slowText string
	slowDone := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(slowDone)
		slowBuild, slowText = search(t, mcpURL, "", "SELECT count(*) AS n FROM range(1000000000) t(x) WHERE x % 7 = 3")
	}()
	waitForGauge(t, mon, "ctool_workers_busy", 1)
	if code, out := runChild(t, "publish", "--db", b, url); code != 0 {
		t.Fatalf("ctool publish b: exit %d\n%s", code, out)
	}
	took := eventually(t, "a call reads the new build", func() bool {
		got, _ := search(t, mcpURL, "", "SELECT 1 AS one")
		return got == idB
	})
	t.Logf("the new build served %s after its publish (interval 1s)", took.Round(time.Millisecond))
	select {
	case <-slowDone:
		t.Error("the slow call ended before the new build was served: it proves nothing of a call in flight (make it slower)")
	default:
	}
	wg.Wait()
	if slowBuild != idA || !strings.Contains(slowText, `"n":`) {
		t.Errorf("the call in flight at the swap: build %q %s, want its rows from %s", slowBuild, slowText, idA)
	}
	if metric(t, mon, "ctool_follow_swaps_total") != 1 || metric(t, mon, `ctool_build_info{build="`+idB+`"}`) != 1 {
		t.Errorf("metrics after the swap:\n%s", func() string { _, b := getBody(t, mon+"/metrics"); return b }())
	}

	// A build of another schema version: refused, counted, shown; the last build stays.
	idOld := publishOlderSchema(t, url, b)
	eventually(t, "the refusal counted", func() bool { return metric(t, mon, `ctool_follow_failures_total{kind="verify"}`) >= 1 })
	h := healthOf(t, mon)
	if sh := h.Sites[0]; h.Status != "failing" || sh.Build != idB || sh.State != "failing" || sh.LastErrorKind != "verify" ||
		!strings.Contains(sh.LastError, "schema version") || sh.AgeSeconds == nil || sh.Source != url {
		t.Errorf("/healthz after a build of an older schema: %+v", h)
	}
	if got, _ := search(t, mcpURL, "", "SELECT 1 AS one"); got != idB {
		t.Errorf("after the refusal a call read %q, want %s", got, idB)
	}
	if metric(t, mon, "ctool_follow_failing") != 1 {
		t.Error("ctool_follow_failing is not 1")
	}
	log := s.stderr.String()
	if n := strings.Count(log, `"follow":"failing"`); n != 1 || !strings.Contains(log, `"kind":"verify","error":"verify: build `+idOld+` has schema version`) {
		t.Errorf("%d failing lines, want one, naming verify and build %s:\n%s", n, idOld, log)
	}
	s.stop(t)

	// The store down at start: the cache's newest build serves; with no cache, exit 3.
	srv.Stop()
	stdio := exec.Command("ctool", "mcp", "--follow", url, "--cache", cache)
	stdio.Env = append(os.Environ(), "CTOOL_DB=", "NARRATIVE_DATA_FILE=")
	stdio.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_stores","arguments":{"sql_query":"SELECT 1 AS one"}}}` + "\n")
	out, err := stdio.Output()
	if err != nil || !strings.Contains(string(out), `"ctool/build":"`+idB+`"`) {
		t.Errorf("store down, cached build: %v\n%s", err, out)
	}
	code, text := runChild(t, "mcp", "--follow", url, "--cache", t.TempDir())
	if code != 3 || !strings.Contains(text, "ctool: no build to serve: "+url+" has none (unreachable: ") ||
		!strings.Contains(text, "Try: check that the store answers from this machine") {
		t.Errorf("store down, no cache: exit %d\n%s", code, text)
	}
	code, text = runChild(t, "publish", "--db", b, url, "--format", "json")
	if code != 6 || !strings.HasPrefix(text, `{"error":"`+url+`: `) || !strings.Contains(text, `"kind":"unavailable","hint":"check the URL`) {
		t.Errorf("publish with the store down: exit %d\n%s", code, text)
	}
}

// Two sites in one server over OAuth, one a build file and one followed from a store: each at its
// own path with its own build, protected resource metadata and audience; /healthz and /metrics name
// both. Then the console serves the same two sites under /NAME/.
func TestSites(t *testing.T) {
	t.Parallel()
	input := ingesttest.SampleInput(t)
	a, b := ingesttest.Build(t, input), ingesttest.Build(t, input)
	idA, idB := recordOf(t, a)[database.BuildID], recordOf(t, b)[database.BuildID]
	store := t.TempDir()
	if code, out := runChild(t, "publish", "--db", b, "file://"+store); code != 0 {
		t.Fatalf("ctool publish: exit %d\n%s", code, out)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	iss := httptest.NewServer(mux)
	defer iss.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Use: "sig"}}})
	})
	mint := func(aud string) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
		if err != nil {
			t.Fatal(err)
		}
		token, err := jwt.Signed(signer).Claims(map[string]any{"iss": iss.URL, "aud": aud, "sub": "visitor-7",
			"exp": time.Now().Add(time.Hour).Unix(), "scope": "ctool:search ctool:profile"}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	const base = "https://concierge.test"
	s := startServer(t, "mcp", "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--auth-issuer", iss.URL, "--resource", base,
		"--site", "azabu="+a, "--site", "shiba=file://"+store, "--cache", t.TempDir())
	serving, mon := s.field("serving"), s.field("metrics")
	if builds, _ := s.start["sites"].(map[string]any); builds["azabu"] != idA || builds["shiba"] != idB {
		t.Errorf("start line %v", s.start)
	}
	for name, id := range map[string]string{"azabu": idA, "shiba": idB} {
		resource := base + "/mcp/" + name
		code, body := getBody(t, strings.TrimSuffix(serving, "/mcp")+"/.well-known/oauth-protected-resource/mcp/"+name)
		if code != 200 || !strings.Contains(body, `"resource":"`+resource+`"`) {
			t.Errorf("%s's metadata: %d %s", name, code, body)
		}
		if got, _ := search(t, serving+"/"+name, mint(resource), "SELECT 1 AS one"); got != id {
			t.Errorf("%s served build %q, want %s", name, got, id)
		}
		if v := metric(t, mon, `ctool_calls_total{outcome="ok",site="`+name+`",tool="search_stores"}`); v != 1 {
			t.Errorf("%s: ctool_calls_total %v, want 1", name, v)
		}
	}
	h := healthOf(t, mon)
	if len(h.Sites) != 2 || h.Sites[0].Site != "azabu" || h.Sites[0].Build != idA || h.Sites[1].Site != "shiba" ||
		h.Sites[1].Build != idB || h.Sites[1].State != "current" {
		t.Errorf("/healthz: %+v", h)
	}
	if v := metric(t, mon, `ctool_follow_swaps_total{site="shiba"}`); v != 0 {
		t.Errorf(`ctool_follow_swaps_total{site="shiba"} = %v, want 0`, v)
	}

	c := startServer(t, "console", "--http", "127.0.0.1:0", "--site", "azabu="+a, "--site", "shiba=file://"+store, "--cache", t.TempDir())
	root := c.field("serving")
	for name, id := range map[string]string{"azabu": idA, "shiba": idB} {
		code, body := getBody(t, root+"/"+name+"/")
		if code != 200 || !strings.Contains(body, id) || !strings.Contains(body, `href="/`+name+`/stores"`) {
			t.Errorf("the console of %s: %d, build %s or its links missing", name, code, id)
		}
	}
	if code, body := getBody(t, root+"/"); code != 200 || !strings.Contains(body, `href="/shiba/"`) {
		t.Errorf("the console's index: %d %s", code, body)
	}
	ch := healthOf(t, root)
	if len(ch.Sites) != 2 || ch.Sites[1].Build != idB {
		t.Errorf("the console's /healthz: %+v", ch)
	}
	if v := metric(t, root, `ctool_build_info{build="`+idA+`",site="azabu"}`); v != 1 {
		t.Errorf("the console's ctool_build_info for azabu: %v", v)
	}

	// One followed build, at the console's root.
	one := startServer(t, "console", "--http", "127.0.0.1:0", "--follow", "file://"+store, "--cache", t.TempDir())
	if code, body := getBody(t, one.field("serving")+"/"); code != 200 || !strings.Contains(body, idB) || !strings.Contains(body, `href="/stores"`) {
		t.Errorf("the console of a followed build: %d, build %s or its links missing", code, idB)
	}
	if h := healthOf(t, one.field("serving")); len(h.Sites) != 1 || h.Sites[0].Build != idB || h.Sites[0].Site != "" {
		t.Errorf("the console's /healthz: %+v", h)
	}
}
