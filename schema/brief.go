package schema

import (
	"fmt"
	"strings"
)

// The brief is the description a tool is registered with: read in every conversation, so it keeps what
// a first attempt needs (relations, columns with a one-line meaning, label values, typed views, a few
// examples on them) and leaves the rest to the full help, one call away: `ctool schema <dataset>` for
// an agent that runs commands, the MCP resource ctool://schema/<dataset> for one that reads resources.
// What every tool shares is said once, in SharedRules.

// maxBriefExamples is how many examples a brief shows: those on the typed views.
const maxBriefExamples = 3

// ResourceURI is the MCP resource holding a dataset's full description.
func ResourceURI(d *Dataset) string { return "ctool://schema/" + d.Name }

// SchemaCommand is the command that prints a dataset's full description, with --db when db is set (its
// label values are the build's).
func SchemaCommand(d *Dataset, db string) string {
	argv := []string{"ctool", "schema", d.Name}
	if d.Private {
		argv[2] = "profile"
	}
	if db != "" {
		argv = append(argv, "--db", db)
	}
	return shellCommand(argv)
}

// SharedRules are the rules all the search tools share, said once: in the MCP server's instructions and
// at the head of `ctool tools --format text`.
func SharedRules() []string {
	return []string{
		"検索ツールは sql_query に SELECT 文を1つだけ受け取ります（WITH, JOIN, UNION, ウィンドウ関数も可）。どのツールのテーブル・ビューとも結合できます",
		fmt.Sprintf("結果は最大%d件。LIMIT がなければ LIMIT %d が付きます。続きは ORDER BY ... LIMIT %d OFFSET %d", RowCap, RowCap, RowCap, RowCap),
		"現在の東京時刻は tokyo_now()（TIMESTAMP）、今日は CAST(tokyo_now() AS DATE)。営業中・開催中は必ずこれと比べます（例の固定日時は置き換えて使います）",
		"is_open(store_id, 時刻) は、その時刻に店舗が営業中なら true（昼休み、深夜0時またぎ、定休日、臨時休業を考慮。営業時間が不明な店舗は false）",
		`答えは {"results": [...], "count": N, "truncated": true/false}。truncated は、返した行の後にも一致する行があるとき true（LIMIT/OFFSET を誰が書いても）`,
		`0件なら "message" と "hint"：一致しない条件、近い値、データの日付の範囲、その語が現れる列を示します。"note" は結果に添える注意です`,
		`エラーは {"error", "kind", "hint"}（DuckDB のエラー文を含みます）。hint に従って直します`,
		"ラベル列（category, tag など）は大文字小文字を区別しません。各ツールの説明にある値で比べます",
		"店名などの表記ゆれ（全角・半角、ひらがな・カタカナ、大文字小文字、空白）は fold(列) LIKE fold('%語%') で吸収します",
	}
}

// Brief renders a dataset's tool description in its lean form, with label values and the place from
// v; full is where the full description is (SchemaCommand or ResourceURI), as its reader can reach it.
func Brief(d *Dataset, v Vocabulary, full string) string {
	var b strings.Builder
	if d.Private {
		fmt.Fprintf(&b, "%s: %s\n%s\n", d.Tool, d.Summary, d.WhenToUse)
		b.WriteString("引数 profile_id: 対話中のユーザーのID（システムから渡されたもの。推測・検索しない）。1人分だけ返します。\n")
		var cols []string
		for _, c := range d.Columns {
			cols = append(cols, c.Name+" "+short(c.Description))
		}
		fmt.Fprintf(&b, "答え: {%s}。エラーは {\"error\", \"kind\"}\n", strings.Join(cols, ", "))
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %s %s\n", d.Tool, d.SummaryAt(v.Place()), d.WhenToUse)
	fmt.Fprintf(&b, "SQL の SELECT 文1つ、結果は最大%d件。現在の東京時刻は tokyo_now()。全説明: %s\n", RowCap, full)
	b.WriteString("\n【テーブルとビュー】\n")
	var cols []string
	for _, c := range d.Columns {
		s := c.Name + " " + short(c.Description)
		switch {
		case c.Kind == JSON:
			s += "(JSON)"
		case c.Hidden:
			s += "(結果に出ない)"
		}
		cols = append(cols, s)
	}
	// The brief names the aliases without the input/ ones, which the full help lists: the same files.
	var aliases []string
	for _, a := range d.Aliases {
		if !strings.HasPrefix(a, "input/") {
			aliases = append(aliases, a)
		}
	}
	fmt.Fprintf(&b, "- %s（別名 '%s'）: CSV のテキストそのまま、空は NULL: %s\n", d.Table, strings.Join(aliases, "', '"), strings.Join(cols, ", "))
	for _, view := range d.Views {
		var vc []string
		for _, c := range view.Columns {
			vc = append(vc, c.Name+" "+c.Type+" "+short(c.Description))
		}
		desc := short(view.Description)
		if view.Extends != "" {
			desc = view.Extends + " の全列に加えて"
		}
		fmt.Fprintf(&b, "- %s: %s: %s\n", view.Name, desc, strings.Join(vc, ", "))
		if view.Note != "" {
			fmt.Fprintf(&b, "  %s\n", view.Note)
		}
	}
	if labels := labelDocs(d, v); len(labels) > 0 && v == nil {
		var cols []string
		for _, l := range labels {
			cols = append(cols, l.Column)
		}
		fmt.Fprintf(&b, "\n【ラベル列の値】%s（%s）\n", NoBuildLabels, strings.Join(cols, ", "))
	} else if len(labels) > 0 {
		b.WriteString("\n【ラベル列の値】このビルドの値\n")
		for _, l := range labels {
			fmt.Fprintf(&b, "- %s: '%s'\n", l.Column, strings.Join(l.Values, "', '"))
		}
	}
	if ex := BriefExamples(d); len(ex) > 0 {
		b.WriteString("\n【例】\n")
		for _, e := range ex {
			fmt.Fprintf(&b, "- %s\n  %s\n", e.Question, strings.ReplaceAll(e.SQL, "\n", " "))
		}
	}
	return b.String()
}

// BriefExamples are the examples a brief shows: the first few on the typed views and the helpers
// (those that do not read the raw CSV text under a file alias).
func BriefExamples(d *Dataset) []Example {
	var out []Example
	for _, e := range d.Examples {
		raw := false
		for _, a := range d.Aliases {
			raw = raw || strings.Contains(e.SQL, "'"+a+"'")
		}
		if !raw && len(out) < maxBriefExamples {
			out = append(out, e)
		}
	}
	return out
}

// short is a description's first clause: what precedes its first parenthesis or full stop.
func short(s string) string {
	if i := strings.IndexAny(s, "（(。"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
