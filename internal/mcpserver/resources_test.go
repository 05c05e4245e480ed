package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxToolsList is the most characters tools/list may take: it is read in every conversation.
const maxToolsList = 11000

// tools/list, read from a build as a client sees it, stays under maxToolsList characters, and the
// shared rules are in the instructions, not repeated in every tool.
func TestToolsListIsLean(t *testing.T) {
	cs := connect(t, newTestServer(t, ingesttest.Build(t, ingesttest.SampleInput(t))))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	n := utf8.RuneCount(b)
	t.Logf("tools/list: %d characters", n)
	if n > maxToolsList {
		t.Errorf("tools/list is %d characters, more than %d", n, maxToolsList)
	}
	instructions := cs.InitializeResult().Instructions
	for _, r := range schema.SharedRules() {
		if !strings.Contains(instructions, r) {
			t.Errorf("instructions lack the shared rule %q", r)
		}
		for _, tool := range res.Tools {
			if strings.Contains(tool.Description, r) {
				t.Errorf("%s repeats the shared rule %q", tool.Name, r)
			}
		}
	}
}

// Each tool's full description is a resource, listed and named by a template; an unknown dataset is
// the spec's resource-not-found error.
func TestSchemaResources(t *testing.T) {
	cs := connect(t, newTestServer(t, "/nonexistent/ctool.duckdb"))
	ctx := context.Background()
	if cs.InitializeResult().Capabilities.Resources == nil {
		t.Error("the server does not advertise resources")
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	want := "ctool://schema/events ctool://schema/stores ctool://schema/products ctool://schema/profiles"
	if got := strings.Join(uris, " "); !sameWords(got, want) {
		t.Errorf("resources %q, want %q", got, want)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "ctool://schema/{dataset}" {
		t.Errorf("templates %+v, want ctool://schema/{dataset}", templates.ResourceTemplates)
	}
	for _, d := range append(schema.Public(), schema.Profiles) {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: schema.ResourceURI(d)})
		if err != nil {
			t.Fatalf("read %s: %v", d.Name, err)
		}
		if len(got.Contents) != 1 || got.Contents[0].Text != schema.FullHelp(d, nil) {
			t.Errorf("%s: the resource is not the dataset's full help", d.Name)
		}
	}
	for _, uri := range []string{"ctool://schema/nope", "ctool://schema/", "ctool://other/stores"} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var rpcErr *jsonrpc.Error
		// The MCP specification's code for an unknown resource (SEP-2164): invalid params.
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: %v, want the resource-not-found error %d", uri, err, jsonrpc.CodeInvalidParams)
		}
	}
}

func sameWords(a, b string) bool {
	m := map[string]int{}
	for _, w := range strings.Fields(a) {
		m[w]++
	}
	for _, w := range strings.Fields(b) {
		m[w]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
