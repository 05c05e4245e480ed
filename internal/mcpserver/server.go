// Package mcpserver owns ctool's MCP server, `ctool mcp` in one call (Run): the four agent tools of
// `ctool tools` served over the Model Context Protocol from one open database, on stdio or streamable
// HTTP, with the guard, row cap, timeout and answers of `ctool query --format json` and `ctool
// profile`; the query workers, OAuth, health and metrics, the drain on a stop, and one log line per
// call.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/internal/worker"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverConfig is what a server is made of. Live and Profiles share one database; the server never closes it.
type serverConfig struct {
	live     *database.Live
	profiles *profile.Finder // get_user_profile; its Pinned id, when set, is the only one it returns
	// timeout bounds each call, from its start to its answer, as --timeout bounds a `ctool query`.
	timeout time.Duration
	log     *eventLog // one JSON line per call; never a result, an argument or a profile field
	version string
	// search runs a search tool's query (a worker pool's); nil runs it in this process, on Live.
	search worker.QueryFunc
	// auth, when set, is the HTTP server's OAuth checks: each tool checks the token's scope again,
	// tools/list shows only the tools it may call, and get_user_profile answers only its own profile.
	auth    *authorizer
	metrics *metricSet // nil: none
	// now is the clock of the instructions' "today"; nil is time.Now.
	now func() time.Time
}

// metaBuild is the key of a search result's _meta that names the build its rows were read from.
const metaBuild = "ctool/build"

// newServer returns the MCP server of the four tools: names, descriptions and input schemas from
// schema.Manifest, the same definitions `ctool tools` prints.
func newServer(c serverConfig) *mcp.Server {
	engine := query.NewEngine(c.live)
	// The label values and the place in the descriptions are the opened build's, read by the server
	// itself (trusted SQL); a later ingest changes the data, not the tool list a client has already read.
	vctx, cancel := context.WithTimeout(context.Background(), max(c.timeout, query.DefaultTimeout))
	vocab, _ := engine.Vocabulary(vctx) // nil on failure: no label values (schema.Vocabulary)
	cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "ctool", Title: title(vocab.Place()), Version: c.version},
		&mcp.ServerOptions{
			// No Instructions here: the options hold one string for the server's life, while today
			// and the build a Live follows change within it (sessionInstructions).
			// The four tools and their schema resources never change while the server runs, and it
			// sends no log messages.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
		})
	srv.AddReceivingMiddleware(refuseUndeclared, sessionInstructions(c, engine, vocab.Place()))
	search := c.search
	if search == nil {
		search = engine.Query
	}
	// The answers go to an agent: an unknown id's hint is what it can do, not the operator's setup.
	profiles := *c.profiles
	profiles.ForAgent = true
	h := &handlers{query: search, profiles: &profiles, timeout: c.timeout, log: c.log, auth: c.auth, metrics: c.metrics}
	if c.auth != nil {
		c.auth.observe(h.log, h.metrics)
		srv.AddReceivingMiddleware(listOwnTools)
	}
	addSchemaResources(srv, vocab)
	for _, t := range schema.ManifestWith(vocab, "", schema.ForMCP) {
		d := datasetOf(t.Name)
		if d.Private && c.auth != nil {
			t = authProfileTool(t, c.auth.cfg.ProfileClaim)
		}
		arg, err := newArgument(t, d)
		if err != nil {
			panic(fmt.Sprintf("mcpserver: tool %s: %v", t.Name, err)) // the manifest is fixed at build time
		}
		tool := &mcp.Tool{
			Name:         t.Name,
			Description:  t.Description,
			InputSchema:  t.InputSchema,
			OutputSchema: outputSchema(d),
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    true,
				IdempotentHint:  true,
				DestructiveHint: ptr(false),
				OpenWorldHint:   ptr(false),
			},
		}
		if d.Private {
			srv.AddTool(tool, h.profile(arg))
		} else {
			srv.AddTool(tool, h.search(d, arg))
		}
	}
	return srv
}

func ptr[T any](v T) *T { return &v }

// title is the server's title for clients' lists: the build's place, where it names one.
func title(p schema.Place) string {
	if name := p.Title(); name != "" {
		return name + " concierge data"
	}
	return "Concierge data"
}

// sessionInstructions answers initialize (and the 2026-07-28 protocol's server/discover) with the
// instructions of the session it starts: today in Tokyo, and the facts of the build current now,
// which a Live replaces when an ingest puts a new one in place. A build that cannot be read leaves
// its facts out, and the place of the build the tools describe stands in.
func sessionInstructions(c serverConfig, engine *query.Engine, place schema.Place) mcp.Middleware {
	now := c.now
	if now == nil {
		now = time.Now
	}
	instructions := func(ctx context.Context) string {
		ctx, cancel := context.WithTimeout(ctx, max(c.timeout, query.DefaultTimeout))
		defer cancel()
		f, err := engine.Facts(ctx)
		if err != nil {
			f = query.Facts{Place: place}
		}
		return Instructions(c.auth != nil, f, now())
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			switch r := res.(type) {
			case *mcp.InitializeResult:
				r.Instructions = instructions(ctx)
			case *mcp.DiscoverResult:
				r.Instructions = instructions(ctx)
			}
			return res, err
		}
	}
}

// refuseUndeclared answers the methods of prompts, a capability the server does not declare, with
// "method not found": the SDK answers prompts/list with an empty list whatever the capabilities say
// (its capabilities and handlers disagree: https://github.com/modelcontextprotocol/go-sdk/issues/56),
// and the 2026-07-28 conformance suite holds a server that answers it to declaring prompts.
// sdk_test.go asserts the SDK's behaviour.
func refuseUndeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "prompts/") {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method + " (this server has no prompts)"}
		}
		return next(ctx, method, req)
	}
}

// datasetOf is the dataset behind a tool of the manifest.
func datasetOf(tool string) *schema.Dataset {
	for _, d := range schema.All() {
		if d.Tool == tool {
			return d
		}
	}
	panic("mcpserver: the manifest names an unknown tool " + tool)
}

type handlers struct {
	query    worker.QueryFunc
	profiles *profile.Finder
	timeout  time.Duration
	log      *eventLog
	auth     *authorizer
	metrics  *metricSet
}

// search answers a search tool as `ctool query <dataset> --format json` does: the structured content is
// the document that command prints, byte for byte, and the text content the same.
func (h *handlers) search(d *schema.Dataset, arg *argument) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		entry := callEntry{tool: d.Tool, rows: ptr(0), truncated: ptr(false)}
		var res *query.Result
		var err error
		if entry.subject, err = h.allowed(req, d.Tool); err == nil {
			res, err = h.runSearch(ctx, d, arg, req.Params.Arguments)
		}
		var doc []byte
		if err == nil {
			entry.rows, entry.truncated = ptr(len(res.Rows)), ptr(res.Truncated)
			doc, err = render.DocumentJSON(res)
		}
		out := h.answer(&entry, start, doc, err)
		if err == nil && res.Build != "" {
			out.Meta = mcp.Meta{metaBuild: res.Build}
		}
		return out, nil
	}
}

func (h *handlers) runSearch(ctx context.Context, d *schema.Dataset, arg *argument, raw json.RawMessage) (*query.Result, error) {
	sqlText, err := arg.value(raw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	res, err := h.query(ctx, d, sqlText)
	if err != nil {
		return nil, render.TimeoutHint(ctx, err, h.timeout, 0)
	}
	return res, nil
}

// profile answers get_user_profile as `ctool profile --format json` does, with every rule of that
// command: one id, the operator's NARRATIVE_DATA_FILE, the same messages, and the pinned id if any;
// only an unknown id's hint is the agent's (profile.HintCheckID).
func (h *handlers) profile(arg *argument) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		entry := callEntry{tool: schema.Profiles.Tool, found: ptr(false)}
		var p *profile.Profile
		var err error
		if entry.subject, err = h.allowed(req, schema.Profiles.Tool); err == nil {
			if h.auth != nil {
				p, err = h.findOwn(ctx, req, arg)
			} else {
				p, err = h.findProfile(ctx, arg, req.Params.Arguments)
			}
		}
		entry.found = ptr(err == nil)
		var doc []byte
		if err == nil {
			doc, err = textout.Marshal(p)
		}
		return h.answer(&entry, start, doc, err), nil
	}
}

func (h *handlers) findProfile(ctx context.Context, arg *argument, raw json.RawMessage) (*profile.Profile, error) {
	id, err := arg.value(raw)
	if err != nil {
		return nil, err
	}
	return h.lookup(ctx, h.profiles, id)
}

func (h *handlers) lookup(ctx context.Context, f *profile.Finder, id string) (*profile.Profile, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	p, err := f.Find(ctx, id) // Find trims, as for ctool profile
	if err != nil && ctx.Err() != nil {
		// The lookup reads one indexed row; only a stuck database gets here.
		return nil, &fault.Error{Kind: fault.KindTimeout, Message: "the profile lookup was stopped: " + ctx.Err().Error(), Err: err}
	}
	return p, err
}

// answer turns a call's outcome into its result, as the command prints it (doc, the document encoded
// compact: the model reads every byte, and indentation carries nothing for it; or the error), and
// writes the call's log line.
func (h *handlers) answer(entry *callEntry, start time.Time, doc []byte, err error) *mcp.CallToolResult {
	var out *mcp.CallToolResult
	if err == nil {
		out = jsonResult(doc)
	} else {
		e := fault.Explain(err)
		out, entry.kind = errorResult(e), e.Kind
	}
	h.log.call(*entry, start)
	outcome := "ok"
	if entry.kind != "" {
		outcome = string(entry.kind)
	}
	h.metrics.call(entry.tool, outcome, time.Since(start))
	return out
}

// jsonResult carries a JSON document as the structured content and, for clients that read only text,
// as the text content.
func jsonResult(doc []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(doc)}},
		StructuredContent: json.RawMessage(doc),
	}
}

// errorResult is a failed call as the model sees it: isError, and the error as the commands print it
// in JSON mode, {"error", "kind", "hint"?}. It has no structured content: that is for answers, which
// the output schema describes.
func errorResult(e *fault.Error) *mcp.CallToolResult {
	// json.Marshal would escape <, > and & in what MarshalJSON wrote; the commands do not.
	b, err := textout.Marshal(e)
	if err != nil {
		b = []byte(`{"error":"internal error","kind":"internal"}`)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, IsError: true}
}
