package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// Instructions is what the server tells a client when a session starts: the data in brief and the
// rules every tool shares, said here once, then today in Tokyo against the build's dates, from f, the
// facts of the build current at the start (a zero f says nothing of a build). Each tool's description
// keeps what is its own (relations, columns, label values, a few examples); its full description is
// the resource ctool://schema/<dataset>. With ownProfile (a server with OAuth), get_user_profile
// returns only the caller's own profile.
func Instructions(ownProfile bool, f query.Facts, now time.Time) string {
	var b strings.Builder
	if f.Place.Name != "" {
		b.WriteString(f.Place.Name + "周辺の")
	}
	b.WriteString("店舗・イベント・商品のデータと、対話中のユーザーのプロファイルを返す読み取り専用のツールです。\n\n")
	for _, d := range schema.Public() {
		fmt.Fprintf(&b, "- %s: %s\n", d.Tool, d.SummaryAt(f.Place))
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
	fmt.Fprintf(&b, "- 各ツールの全説明（全カラム、JSON列の形、全検索例）はリソース %s にあります\n\n", schemaTemplate)
	// Last, as it changes from day to day: what comes before it stays the same for a client to cache.
	b.WriteString(dates(f, now) + "\n")
	return b.String()
}

// dates is "今日は 2026-11-29（東京）。このデータは 2026-11-28 に作成（1日前）、イベントの日付は
// 2027-01-05〜2027-03-28。": an agent that knows the data is a week old, or its events all past, does
// not read "nothing on today" as the area's news.
func dates(f query.Facts, now time.Time) string {
	today := now.In(schema.Tokyo)
	s := "今日は " + today.Format(time.DateOnly) + "（東京）。"
	if f.BuiltAt.IsZero() {
		return s
	}
	built := f.BuiltAt.In(schema.Tokyo)
	s += "このデータは " + built.Format(time.DateOnly) + " に作成"
	switch days := daysBetween(built, today); {
	case days > 0:
		s += fmt.Sprintf("（%d日前）", days)
	case days == 0:
		s += "（今日）"
	}
	if f.EventsFrom != "" && f.EventsTo != "" {
		s += "、イベントの日付は " + f.EventsFrom + "〜" + f.EventsTo
	}
	return s + "。"
}

// daysBetween counts the calendar days in Tokyo from a to b.
func daysBetween(a, b time.Time) int {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	return int(day(b).Sub(day(a)).Hours() / 24)
}

// outputSchema describes a tool's structured content: render.Document for the search tools, and for
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
