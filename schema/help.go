package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Doc is the agent-facing description of one tool, generated from a dataset's definition. The text
// help and `ctool schema --format json` are two renderings of it. Every list is there in the JSON, as []
// when empty, never null or left out, so a consumer can iterate without checking.
type Doc struct {
	Tool       string        `json:"tool"`
	Dataset    string        `json:"dataset"`
	Summary    string        `json:"summary"`
	WhenToUse  string        `json:"when_to_use"`
	Command    string        `json:"command"`
	Rules      []string      `json:"rules"`
	CLI        []string      `json:"cli"` // notes for the command line only: quoting, refusals, the operator's files
	Relations  []RelationDoc `json:"relations"`
	Columns    []ColumnDoc   `json:"columns"`
	Now        []string      `json:"now"`
	Examples   []Example     `json:"examples"`
	OutputNote string        `json:"output"`
	Labels     []LabelDoc    `json:"labels"`
	// LabelsNote stands in for the label values when no build was read (NoBuildLabels).
	LabelsNote string `json:"labels_note,omitempty"`
}

// RelationDoc describes a table or view a query may name.
type RelationDoc struct {
	Name        string      `json:"name"`
	Aliases     []string    `json:"aliases"`
	Description string      `json:"description"`
	Note        string      `json:"note,omitempty"`
	Columns     []ColumnDoc `json:"columns"`
}

// ColumnDoc describes one column.
type ColumnDoc struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Example     string          `json:"example,omitempty"`
	JSONSchema  json.RawMessage `json:"json_schema,omitempty"`
}

// DescribeWith builds the tool description of a dataset, listing label values from v, the values of
// a built database, where it has them, and naming its place where the build names one.
func DescribeWith(d *Dataset, v Vocabulary) Doc {
	doc := Doc{Tool: d.Tool, Dataset: d.Name, Summary: d.SummaryAt(v.Place()), WhenToUse: d.WhenToUse, Rules: []string{}, CLI: []string{},
		Relations: []RelationDoc{}, Columns: []ColumnDoc{}, Now: []string{}, Examples: append([]Example{}, d.Examples...),
		Labels: []LabelDoc{}}
	for _, c := range d.Columns {
		typ := "TEXT"
		if d.Private && c.Kind == Integer {
			typ = "INTEGER"
		}
		cd := ColumnDoc{Name: c.Name, Type: typ, Description: c.Description, Example: c.Example}
		if got, ok := v[ExampleKey(d.Table, c.Name)]; ok && len(got) == 1 && got[0] != "" && (c.SchemaFile == "" || utf8.RuneCountInString(got[0]) <= maxExampleRunes) {
			// One row of the build: what the examples pair is true of this build.
			cd.Example = clipExample(got[0])
		}
		if c.SchemaFile != "" {
			text, _ := JSONSchema(c.SchemaFile)
			cd.JSONSchema = json.RawMessage(compactJSON(text))
		}
		doc.Columns = append(doc.Columns, cd)
	}
	if d.Private {
		doc.Command = "ctool profile --format json <profile_id>"
		doc.Rules = []string{
			"profile_id を1つ指定して、そのユーザー1人分のプロファイルだけを取得します",
			"profile_id はシステムから渡された対話中のユーザーのIDを使い、推測・検索しないでください",
			"複数ユーザーの一覧・検索・列挙はできません（SQLでも取得できません）",
			"profile_id がない場合は「profile_idを指定してください」、存在しない場合は「ユーザーが見つかりません: <id>」のエラーになります。そのときはIDが正しいかユーザーに確認してもらい、プロファイルを使わずに提案してください（別のIDを推測して試さない）",
		}
		doc.CLI = []string{"どのデータファイルから読むかは環境変数 NARRATIVE_DATA_FILE で運用者が決めます（既定 narrative_data.csv）。存在しないIDのエラーの hint には、探したプロファイルのファイルが示されます"}
		doc.OutputNote = `{"profile_id", "age", "gender", "user_type", "primary_store_id", "primary_store_name", "visits", "narrative"}（age と visits は整数、narrative は改行を含む）。エラー時は {"error": "..."}`
		return doc
	}
	var others []string
	for _, o := range Public() {
		if o != d {
			others = append(others, o.Table)
		}
	}
	doc.Command = fmt.Sprintf("ctool query %s --format json -- \"<SQL>\"", d.Name)
	doc.CLI = []string{
		"SQLは1つの引数として渡すか、- を指定して標準入力から渡します。-- の後はフラグとして読まれません",
		"INSERT/UPDATE/DELETE/CREATE/DROP/ALTER/COPY/ATTACH/SET/PRAGMA などの文、ファイル・設定・メタデータを読む関数（read_csv, glob, duckdb_settings など）は拒否されます",
	}
	doc.Rules = []string{
		"SELECT文を1つだけ実行できます（WITH, UNION, VALUES, ORDER BY, ウィンドウ関数, QUALIFY も使えます）",
		fmt.Sprintf("FROM句には %s を指定します（下の別名も使えます）。%s とそのビューとも結合できます", d.Table, strings.Join(others, ", ")),
		fmt.Sprintf("検索結果は最大%d件です。LIMIT がなければ LIMIT %d が付き、%d を超える LIMIT は %d 件に制限されます", RowCap, RowCap, RowCap, RowCap),
		fmt.Sprintf("続きは ORDER BY ... LIMIT %d OFFSET %d のように OFFSET でページングします", RowCap, RowCap),
	}
	for _, c := range d.Columns {
		if c.Hidden {
			doc.Rules = append(doc.Rules, fmt.Sprintf("%s は結合や絞り込み（WHERE, JOIN）には使えますが、結果には表示されません", c.Name))
		}
	}
	doc.OutputNote = fmt.Sprintf(`{"results": [...], "count": N, "truncated": true/false}。`+
		`truncated は、返した行の後にも一致する行があるとき true（LIMIT/OFFSET を誰が書いても）。0件なら "message": "%s" と、一致する行のない条件と近い値を示す "hint"。エラー時は {"error": "..."}（DuckDBのエラー文を含む）`, d.ZeroMessage)
	doc.Labels = labelDocs(d, v)
	if v == nil && len(doc.Labels) > 0 {
		doc.LabelsNote = NoBuildLabels
	}
	doc.Relations = append(doc.Relations, RelationDoc{Name: d.Table, Aliases: append([]string{}, d.Aliases...), Columns: []ColumnDoc{},
		Description: "元のCSVのテキストそのまま（空のセルは NULL: 不明の意味で、「なし」ではありません）。JSON列は文字列なので LIKE で検索できます"})
	for _, v := range d.Views {
		rd := RelationDoc{Name: v.Name, Aliases: []string{}, Columns: []ColumnDoc{}, Description: v.Description, Note: v.Note}
		if v.Extends != "" {
			rd.Description += fmt.Sprintf("（%s の全カラムを持ち、次のカラムの型が変わる・追加される）", v.Extends)
		}
		for _, c := range v.Columns {
			rd.Columns = append(rd.Columns, ColumnDoc{Name: c.Name, Type: c.Type, Description: c.Description})
		}
		doc.Relations = append(doc.Relations, rd)
	}
	doc.Now = []string{
		"東京の現在時刻は tokyo_now()（TIMESTAMP）、今日の日付は CAST(tokyo_now() AS DATE) です。営業中・開催中かどうかは必ず現在の東京時刻と比べて判断してください",
		"is_open(store_id, tokyo_now()) は、その時刻に店舗が営業中なら true を返します（昼休み、深夜0時をまたぐ営業、定休日、臨時休業を考慮）。例の固定日時は tokyo_now() に置き換えて使います",
		"開催中のイベント: WHERE CAST(tokyo_now() AS DATE) BETWEEN start_date AND end_date（events_typed）",
	}
	return doc
}

// Help renders a dataset's tool description as text.
func Help(d *Dataset) string { return HelpWith(d, nil) }

// HelpWith renders a dataset's tool description as text, with label values from v (see DescribeWith).
func HelpWith(d *Dataset, v Vocabulary) string { return helpText(d, v, true) }

// FullHelp is the full description an MCP client reads as a resource: the help without the notes
// that only the command line needs.
func FullHelp(d *Dataset, v Vocabulary) string { return helpText(d, v, false) }

func helpText(d *Dataset, v Vocabulary, cli bool) string {
	doc := DescribeWith(d, v)
	var b strings.Builder
	if d.Private {
		fmt.Fprintf(&b, "%s: 対話中のユーザーのプロファイルを1人分取得します。\n\n", doc.Tool)
	} else {
		fmt.Fprintf(&b, "%s: %sをSQLクエリで検索します。\n\n", doc.Tool, d.Noun())
	}
	section(&b, "データ", doc.Summary)
	section(&b, "使い分け", doc.WhenToUse)
	b.WriteString("【使用方法】\n")
	if cli {
		fmt.Fprintf(&b, "- %s\n", doc.Command)
	}
	for _, r := range doc.Rules {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	if cli {
		for _, r := range doc.CLI {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	fmt.Fprintf(&b, "- 出力: %s\n\n", doc.OutputNote)
	if len(doc.Relations) > 0 {
		b.WriteString("【テーブルとビュー】\n")
		for _, r := range doc.Relations {
			name := r.Name
			if len(r.Aliases) > 0 {
				name += "（別名: '" + strings.Join(r.Aliases, "', '") + "'）"
			}
			fmt.Fprintf(&b, "- %s: %s\n", name, r.Description)
			if r.Note != "" {
				fmt.Fprintf(&b, "  %s\n", r.Note)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "【カラム】%s\n", d.Table)
	for _, c := range doc.Columns {
		fmt.Fprintf(&b, "- %s (%s): %s", c.Name, c.Type, c.Description)
		if c.Example != "" && c.JSONSchema == nil {
			fmt.Fprintf(&b, "（例: %s）", c.Example)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	var jsonCols []ColumnDoc
	for _, c := range doc.Columns {
		if c.JSONSchema != nil {
			jsonCols = append(jsonCols, c)
		}
	}
	if len(jsonCols) > 0 {
		b.WriteString("【JSON形式のカラム】（空のセルは NULL で、不明を表します）\n")
		for _, c := range jsonCols {
			// The full JSON Schema is in --format json; the text keeps what a model needs to write LIKE
			// patterns and json_extract paths.
			var s struct {
				Description string `json:"description"`
			}
			json.Unmarshal(c.JSONSchema, &s)
			fmt.Fprintf(&b, "- %s: %s 例 %s\n", c.Name, s.Description, c.Example)
		}
		b.WriteString("\n")
	}
	for _, r := range doc.Relations {
		if len(r.Columns) == 0 {
			continue
		}
		fmt.Fprintf(&b, "【カラム】%s\n", r.Name)
		for _, c := range r.Columns {
			fmt.Fprintf(&b, "- %s (%s): %s\n", c.Name, c.Type, c.Description)
		}
		b.WriteString("\n")
	}
	if len(doc.Labels) > 0 && doc.LabelsNote != "" {
		fmt.Fprintf(&b, "【ラベル列の値】%s\n", doc.LabelsNote)
		for _, l := range doc.Labels {
			fmt.Fprintf(&b, "- %s（%s）\n", l.Column, strings.Join(l.Relations, ", "))
		}
		b.WriteString("\n")
	} else if len(doc.Labels) > 0 {
		b.WriteString("【ラベル列の値】このビルドの値です。大文字小文字は区別しません。別の言い方（'カフェ' と 'cafe'、'子ども' と '子供'）は一致しないので、ここにある値で比べます\n")
		for _, l := range doc.Labels {
			fmt.Fprintf(&b, "- %s（%s）: '%s'\n", l.Column, strings.Join(l.Relations, ", "), strings.Join(l.Values, "', '"))
		}
		b.WriteString("\n")
	}
	if len(doc.Now) > 0 {
		b.WriteString("【現在時刻と営業中の判定】\n")
		for _, n := range doc.Now {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	if len(doc.Examples) > 0 {
		b.WriteString("【検索例】\n")
		for i, e := range doc.Examples {
			fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, e.Question, strings.ReplaceAll(e.SQL, "\n", "\n   "))
		}
	}
	if d.Private && cli {
		b.WriteString("【例】\n   ctool profile --format json user_example\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func section(b *strings.Builder, title, text string) {
	fmt.Fprintf(b, "【%s】\n%s\n\n", title, text)
}

// Noun is the dataset's name in the agent's language.
func (d *Dataset) Noun() string {
	switch d.Name {
	case "events":
		return "イベントデータ"
	case "stores":
		return "店舗データ"
	case "products":
		return "商品データ"
	}
	return d.Name
}

func compactJSON(text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return text
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "$schema")
		delete(m, "$id")
		delete(m, "title")
	}
	b, _ := json.Marshal(v)
	return string(b)
}
