package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/schema"
)

// Instructions is what the server tells a client when it connects: a short summary of the data and
// the rules every tool shares. Each tool's description holds the rest (every column, worked examples).
func Instructions() string {
	var b strings.Builder
	b.WriteString("麻布台ヒルズ（東京）の店舗・イベント・商品のデータと、対話中のユーザーのプロファイルを返す読み取り専用のツールです。\n\n")
	for _, d := range schema.Public() {
		rel := []string{d.Table}
		for _, v := range d.Views {
			rel = append(rel, v.Name)
		}
		fmt.Fprintf(&b, "- %s: %s テーブルとビュー: %s\n", d.Tool, d.Summary, strings.Join(rel, ", "))
	}
	fmt.Fprintf(&b, "- %s: %s profile_id を1つ指定して1人分だけ取得します（一覧・検索はできません）。\n\n", schema.Profiles.Tool, schema.Profiles.Summary)
	fmt.Fprintf(&b, "3つの検索ツールは sql_query に SELECT 文を1つだけ受け取り、どのテーブルとも結合できます。結果は最大%d件で、"+
		"続きは ORDER BY ... LIMIT %d OFFSET %d で取得します。現在の東京時刻は tokyo_now()、店舗が営業中かは is_open(store_id, tokyo_now()) で判断します。"+
		"結果は {\"results\", \"count\", \"truncated\"}、エラーは isError の結果で {\"error\", \"kind\", \"hint\"} です。"+
		"0件のときの \"hint\" は一致する行のない条件と、その列にある近い値を示します（'カフェ' なら 'cafe'）。"+
		"カラムの一覧と検索例は各ツールの説明にあります。\n", schema.RowCap, schema.RowCap, schema.RowCap)
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
			typ := "string"
			if c.Kind == schema.Integer {
				typ = "integer"
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
				"truncated": map[string]any{"type": "boolean", "description": "more rows matched than were returned"},
				"message":   map[string]any{"type": "string", "description": "when nothing matched"},
				"hint":      map[string]any{"type": "string", "description": "when truncated: how to narrow the query or page"},
				"note":      map[string]any{"type": "string", "description": "which columns were left out of the result"},
			},
			"required":             []string{"results", "count", "truncated"},
			"additionalProperties": false,
		}
	}
	b, _ := json.Marshal(s)
	return b
}
