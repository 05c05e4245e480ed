package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// Instructions is what the server tells a client when it connects: the data in brief and the rules
// every tool shares, said here once. Each tool's description keeps what is its own (relations,
// columns, label values, a few examples); its full description is the resource ctool://schema/<dataset>.
// With ownProfile (a server with OAuth), get_user_profile returns only the caller's own profile.
func Instructions(ownProfile bool) string {
	var b strings.Builder
	b.WriteString("麻布台ヒルズ（東京）の店舗・イベント・商品のデータと、対話中のユーザーのプロファイルを返す読み取り専用のツールです。\n\n")
	for _, d := range schema.Public() {
		fmt.Fprintf(&b, "- %s: %s\n", d.Tool, d.Summary)
	}
	if ownProfile {
		fmt.Fprintf(&b, "- %s: %s 返すのはアクセストークンのユーザー本人のプロファイルだけです（profile_id は省略可、一覧・検索はできません）。\n\n", schema.Profiles.Tool, schema.Profiles.Summary)
	} else {
		fmt.Fprintf(&b, "- %s: %s profile_id を1つ指定して1人分だけ取得します（一覧・検索はできません）。\n\n", schema.Profiles.Tool, schema.Profiles.Summary)
	}
	b.WriteString("共通のきまり:\n")
	for _, r := range schema.SharedRules() {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	fmt.Fprintf(&b, "- 各ツールの全説明（全カラム、JSON列の形、全検索例）はリソース %s にあります\n", schemaTemplate)
	return b.String()
}

// outputSchema describes a tool's structured content: query.Document for the search tools, and for
// get_user_profile the profile, read from the dataset's columns (a test holds profile.Profile to them).
func outputSchema(d *schema.Dataset) json.RawMessage {
	var s map[string]any
	if d.Private {
		props := map[string]any{}
		var names []string
		for _, c := range d.Columns {
			var typ any = "string"
			if c.Kind == schema.Integer {
				typ = []string{"integer", "null"} // null: the cell could not be read as a number
			}
			props[c.Name] = map[string]any{"type": typ, "description": c.Description}
			names = append(names, c.Name)
		}
		s = map[string]any{"type": "object", "properties": props, "required": names, "additionalProperties": false}
	} else {
		s = map[string]any{
			"type": "object",
			"properties": map[string]any{
				"results":   map[string]any{"type": "array", "maxItems": schema.RowCap, "items": map[string]any{"type": "object"}, "description": "one object per row, columns in the SELECT's order"},
				"count":     map[string]any{"type": "integer", "minimum": 0, "maximum": schema.RowCap},
				"truncated": map[string]any{"type": "boolean", "description": "more rows match after the returned ones, whoever wrote LIMIT/OFFSET"},
				"message":   map[string]any{"type": "string", "description": "when nothing matched"},
				"hint":      map[string]any{"type": "string", "description": "why nothing matched, or how to narrow or page"},
				"note":      map[string]any{"type": "string"},
			},
			"required":             []string{"results", "count", "truncated"},
			"additionalProperties": false,
		}
	}
	b, _ := json.Marshal(s)
	return b
}
