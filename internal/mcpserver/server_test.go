package mcpserver

import (
	"context"
	"encoding/json"
	"github.com/azabudai/ctool/internal/loopback"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/xeipuuv/gojsonschema"
)

func newTestServer(t *testing.T, dbPath string) *mcp.Server {
	t.Helper()
	live := database.NewLive(dbPath)
	t.Cleanup(live.Close)
	finder, err := profile.NewFinder(live, "")
	if err != nil {
		t.Fatal(err)
	}
	return newServer(serverConfig{live: live, profiles: finder, timeout: 5 * time.Second, version: "test", now: testNow})
}

// testNow is the tests' clock: the instructions say today's date.
func testNow() time.Time { return time.Date(2026, 11, 29, 0, 30, 0, 0, schema.Tokyo) }

// connect runs srv in memory and returns a client session of the SDK's client.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The tools are the manifest of `ctool tools` (each description pointing to its MCP resource rather than
// to `ctool schema`), with the annotations of a read-only, closed-world tool.
func TestToolsAreTheManifest(t *testing.T) {
	srv := newTestServer(t, "/nonexistent/ctool.duckdb")
	cs := connect(t, srv)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	manifest := schema.ManifestWith(nil, "", schema.ForMCP)
	if len(res.Tools) != len(manifest) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(manifest))
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	for _, m := range manifest {
		tool := byName[m.Name]
		if tool == nil {
			t.Errorf("tool %s missing", m.Name)
			continue
		}
		if tool.Description != m.Description {
			t.Errorf("%s: description differs from the manifest's", m.Name)
		}
		var want any
		json.Unmarshal(m.InputSchema, &want)
		if !reflect.DeepEqual(tool.InputSchema, want) {
			t.Errorf("%s: input schema %v, want %v", m.Name, tool.InputSchema, want)
		}
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint ||
			a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v", m.Name, a)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", m.Name)
		}
	}
	if got := cs.InitializeResult().Instructions; got != Instructions(false, query.Facts{}, testNow()) {
		t.Errorf("instructions %q", got)
	}
}

// Every answer the tools give validates against the output schema they declare: examples of every
// dataset, a result with no rows, a truncated one, one that leaves a hidden column out, and a profile.
func TestAnswersMatchTheOutputSchemas(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	srv := newTestServer(t, path)
	cs := connect(t, srv)
	schemas := map[string]*gojsonschema.Schema{}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(b))
		if err != nil {
			t.Fatalf("%s: output schema does not compile: %v", tool.Name, err)
		}
		schemas[tool.Name] = s
	}
	type call struct {
		tool string
		args map[string]any
		want string // a key the structured content must have
	}
	var calls []call
	for _, d := range schema.Public() {
		for _, ex := range d.Examples {
			calls = append(calls, call{d.Tool, map[string]any{"sql_query": ex.SQL}, "results"})
		}
	}
	calls = append(calls,
		call{"search_stores", map[string]any{"sql_query": "SELECT * FROM stores WHERE store_name = 'no such store'"}, "message"},
		call{"search_stores", map[string]any{"sql_query": "SELECT store_name FROM stores WHERE category = 'カフェ'"}, "hint"},
		call{"search_products", map[string]any{"sql_query": "SELECT product_name FROM products"}, "hint"},
		call{"search_products", map[string]any{"sql_query": "SELECT * FROM products LIMIT 1"}, "note"},
		call{"get_user_profile", map[string]any{"profile_id": "user_criollo_heavy"}, "narrative"},
	)
	for _, c := range calls {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		if r.IsError {
			t.Errorf("%s %v: %s", c.tool, c.args, r.Content[0].(*mcp.TextContent).Text)
			continue
		}
		b, _ := json.Marshal(r.StructuredContent)
		v, err := schemas[c.tool].Validate(gojsonschema.NewBytesLoader(b))
		if err != nil || !v.Valid() {
			t.Errorf("%s %v: structured content %s does not match the output schema: %v %v", c.tool, c.args, b, err, v.Errors())
		}
		if m, _ := r.StructuredContent.(map[string]any); m[c.want] == nil {
			t.Errorf("%s %v: no %q in %s", c.tool, c.args, c.want, b)
		}
	}
}

// get_user_profile's output schema is read from the dataset; the answer is a profile.Profile.
func TestProfileSchemaIsTheProfile(t *testing.T) {
	typ := reflect.TypeFor[profile.Profile]()
	if typ.NumField() != len(schema.Profiles.Columns) {
		t.Fatalf("profile.Profile has %d fields, the dataset %d columns", typ.NumField(), len(schema.Profiles.Columns))
	}
	for i, c := range schema.Profiles.Columns {
		f := typ.Field(i)
		want := reflect.TypeFor[string]()
		if c.Kind == schema.Integer {
			want = reflect.TypeFor[*int]() // nil where the cell could not be read as a number
		}
		if f.Tag.Get("json") != c.Name || f.Type != want {
			t.Errorf("field %d: %s %s (json %q), column %s %s", i, f.Name, f.Type, f.Tag.Get("json"), c.Name, c.Kind)
		}
	}
}

// An unknown id over MCP gets the hint an agent can act on, to check the id with the visitor, and
// nothing of the operator's files or variables, which ctool profile's hint names.
func TestProfileNotFoundTellsTheAgentWhatItCanDo(t *testing.T) {
	cs := connect(t, newTestServer(t, ingesttest.Build(t, ingesttest.SampleInput(t))))
	// user_diverse_frequent is in narrative_data_2.csv, which this server does not read.
	for _, id := range []string{"nonexistent_user", "user_diverse_frequent"} {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_user_profile", Arguments: map[string]any{"profile_id": id}})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"error":"` + profile.MsgNotFound + id + `","kind":"not_found","hint":"` + profile.HintCheckID + `"}`
		if got := r.Content[0].(*mcp.TextContent).Text; !r.IsError || got != want {
			t.Errorf("%s: isError=%v %s\nwant %s", id, r.IsError, got, want)
		}
	}
}

func TestArgument(t *testing.T) {
	tools := map[string]schema.Tool{}
	for _, m := range schema.Manifest() {
		tools[m.Name] = m
	}
	for _, tc := range []struct {
		tool, raw, want, err string
	}{
		{"search_stores", `{"sql_query": "SELECT 1"}`, "SELECT 1", ""},
		{"search_stores", `{}`, "", ""},
		{"search_stores", ``, "", ""},
		{"search_stores", `null`, "", ""},
		{"search_stores", `{"sql_query": ""}`, "", ""},
		{"search_stores", `{"sql_query": 5}`, "", "search_stores: sql_query: Invalid type. Expected: string, given: integer"},
		{"search_stores", `{"sql_query": "SELECT 1", "limit": 5}`, "", "search_stores: (root): Additional property limit is not allowed"},
		{"search_stores", `{"sql": "SELECT 1"}`, "", "search_stores: (root): sql_query is required; (root): Additional property sql is not allowed"},
		{"search_stores", `["SELECT 1"]`, "", "search_stores: the arguments must be a JSON object"},
		{"search_stores", `{"sql_query": "` + strings.Repeat("x", 100001) + `"}`, "", "search_stores: sql_query: String length must be less than or equal to 100000"},
		// maxLength counts characters, as the guard does (schema.MaxQueryChars): 3 bytes each here.
		{"search_stores", `{"sql_query": "` + strings.Repeat("あ", 100000) + `"}`, strings.Repeat("あ", 100000), ""},
		{"search_stores", `{"sql_query": "` + strings.Repeat("あ", 100001) + `"}`, "", "search_stores: sql_query: String length must be less than or equal to 100000"},
		{"get_user_profile", `{"profile_id": "user_criollo_heavy"}`, "user_criollo_heavy", ""},
		{"get_user_profile", `{"profile_id": ""}`, "", ""},
		{"get_user_profile", `{"profile_id": ["a", "b"]}`, "", profile.MsgOneID},
		{"get_user_profile", `{"profile_id": "` + strings.Repeat("u", 201) + `"}`, "", "get_user_profile: profile_id: String length must be less than or equal to 200"},
	} {
		m := tools[tc.tool]
		arg, err := newArgument(m, datasetOf(m.Name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := arg.value(json.RawMessage(tc.raw))
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		if got != tc.want || errText != tc.err {
			t.Errorf("%s %.60s: got %q, %q; want %q, %q", tc.tool, tc.raw, got, errText, tc.want, tc.err)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "127.1.2.3:0": true, "localhost:80": true, "LOCALHOST": true, "[::1]:8765": true, "::1": true,
		"0.0.0.0:8765": false, ":8765": false, "192.0.2.1:80": false, "example.com:80": false, "[::]:80": false, "": false,
	} {
		if got := loopback.Is(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// A page in a browser may reach a loopback server through a rebound name or a cross-origin request:
// both are refused before the MCP handler sees them.
func TestHandlerRefusesForeignHostsAndOrigins(t *testing.T) {
	srv := newTestServer(t, "/nonexistent/ctool.duckdb")
	ts := httptest.NewServer(handler(srv, nil))
	defer ts.Close()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		host, origin, site string // site: Sec-Fetch-Site, as browsers send it
		want               int
	}{
		{"", "", "", http.StatusOK},
		{"", "http://localhost:6274", "", http.StatusOK},
		{"", "http://localhost:6274", "cross-site", http.StatusOK},
		{"", "http://127.0.0.1", "", http.StatusOK},
		{"evil.example.com", "", "", http.StatusForbidden},
		{"", "http://evil.example.com", "", http.StatusForbidden},
		{"", "http://evil.example.com", "cross-site", http.StatusForbidden},
		{"", "", "cross-site", http.StatusForbidden},
		{"evil.example.com", "http://evil.example.com", "", http.StatusForbidden},
		{"", "null", "", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", ts.URL+Path, strings.NewReader(ping))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.site != "" {
			req.Header.Set("Sec-Fetch-Site", tc.site)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q Origin %q Sec-Fetch-Site %q: status %d, want %d", tc.host, tc.origin, tc.site, resp.StatusCode, tc.want)
		}
	}
}

// A failed call's text is the error as `ctool query --format json` prints it: <, > and & as they are.
func TestErrorResultAsTheCommandPrintsIt(t *testing.T) {
	e := &fault.Error{Kind: fault.KindSQL, Message: `no column "a<b" & more`, Hint: "x > 1"}
	r := errorResult(e)
	want := `{"error":"no column \"a<b\" & more","kind":"sql_error","hint":"x > 1"}`
	if got := r.Content[0].(*mcp.TextContent).Text; got != want || !r.IsError {
		t.Errorf("errorResult = %s (isError %v), want %s", got, r.IsError, want)
	}
}

// The server declares no prompts, and prompts/list says so rather than answering an empty list.
func TestNoPrompts(t *testing.T) {
	cs := connect(t, newTestServer(t, "/nonexistent/ctool.duckdb"))
	if _, err := cs.ListPrompts(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Errorf("prompts/list: %v, want method not found", err)
	}
	if cs.InitializeResult().Capabilities.Prompts != nil {
		t.Error("the server declares prompts")
	}
}
