package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolScope is the scope a tool needs, "" for a name that is no tool (the SDK answers those).
func toolScope(tool string) string {
	for _, d := range schema.All() {
		if d.Tool == tool {
			if d.Private {
				return scopeProfile
			}
			return scopeSearch
		}
	}
	return ""
}

func hasScope(ti *auth.TokenInfo, scope string) bool {
	return ti != nil && slices.Contains(ti.Scopes, scope)
}

// allowed checks a call's token again in the tool handler, from the TokenInfo the SDK passes on: the
// HTTP check reads the body once, and this one does not depend on it.
func (h *handlers) allowed(req *mcp.CallToolRequest, tool string) (subject string, err error) {
	if h.auth == nil {
		return "", nil
	}
	var ti *auth.TokenInfo
	if req.Extra != nil {
		ti = req.Extra.TokenInfo
	}
	if scope := toolScope(tool); !hasScope(ti, scope) {
		h.metrics.authRefused(reasonScope)
		return subjectOf(ti), &fault.Error{Kind: fault.KindRefused, Message: "this token does not grant " + scope}
	}
	return subjectOf(ti), nil
}

// callerProfile is the profile id a verified token names, or the error a token without one gets.
func callerProfile(req *mcp.CallToolRequest, claim string) (string, error) {
	var id string
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		id, _ = req.Extra.TokenInfo.Extra[extraProfile].(string)
	}
	if id == "" {
		return "", &fault.Error{Kind: fault.KindRefused, Message: "このトークンにはユーザーのID（" + claim + "）がないため、プロファイルを返せません"}
	}
	return id, nil
}

// findOwn answers get_user_profile with auth on: the caller's own profile, for no id or that id;
// any other id, whether someone has it or not, gets the not-found answer an unknown id gets, without
// a lookup (the Finder pinned to the caller).
func (h *handlers) findOwn(ctx context.Context, req *mcp.CallToolRequest, arg *argument) (*profile.Profile, error) {
	own, err := callerProfile(req, h.auth.cfg.ProfileClaim)
	if err != nil {
		return nil, err
	}
	id, err := arg.value(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		id = own
	}
	f := *h.profiles
	f.Pinned = own
	return h.lookup(ctx, &f, id)
}

// listOwnTools lists only the tools the caller's token may call, and says the list is theirs alone
// (the cache hint of protocol 2026-07-28).
func listOwnTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok {
			return res, err
		}
		var ti *auth.TokenInfo
		if extra := req.GetExtra(); extra != nil {
			ti = extra.TokenInfo
		}
		var tools []*mcp.Tool
		for _, t := range list.Tools {
			if hasScope(ti, toolScope(t.Name)) {
				tools = append(tools, t)
			}
		}
		out := *list
		out.Tools = tools
		if out.Tools == nil {
			out.Tools = []*mcp.Tool{}
		}
		out.CacheScope = "private"
		return &out, nil
	}
}

// authProfileTool is get_user_profile as a server with auth describes it: profile_id optional, and
// only the caller's own profile.
func authProfileTool(t schema.Tool, claim string) schema.Tool {
	var s map[string]any
	if json.Unmarshal(t.InputSchema, &s) != nil {
		return t
	}
	delete(s, "required")
	if props, ok := s["properties"].(map[string]any); ok {
		if p, ok := props["profile_id"].(map[string]any); ok {
			p["description"] = "省略可。省略すると、アクセストークンのユーザー本人のプロファイルを返します（本人以外のIDは「ユーザーが見つかりません」になります）"
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return t
	}
	t.InputSchema = b
	t.Description += "\n\nこのサーバーはOAuthで認証します: 返すのはアクセストークンのユーザー本人（クレーム " + claim +
		"）のプロファイルだけです。profile_id は省略でき、本人以外のIDは存在しないIDと同じく「ユーザーが見つかりません: <id>」になります。"
	return t
}
