package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"
)

// maxHelpRunes bounds one tool description: it is sent with every agent request, so it must stay a
// description and not become a data dump.
const maxHelpRunes = 16000

// agentTools are the tools the seeds ask for, with the dataset behind each.
var agentTools = map[string]*Dataset{
	"search_events":    Events,
	"search_stores":    Stores,
	"search_products":  Products,
	"get_user_profile": Profiles,
}

func TestHelpNamesEveryColumnAndRelation(t *testing.T) {
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			help := Help(d)
			if !strings.HasPrefix(help, d.Tool+": ") {
				t.Errorf("help does not start with the tool name %s: %q", d.Tool, firstLine(help))
			}
			for _, c := range d.Columns {
				if !strings.Contains(help, "- "+c.Name+" (") {
					t.Errorf("help does not describe column %s", c.Name)
				}
				if !strings.Contains(help, c.Description) {
					t.Errorf("help lacks the description of column %s: %s", c.Name, c.Description)
				}
			}
			for _, v := range d.Views {
				if !strings.Contains(help, "【カラム】"+v.Name+"\n") {
					t.Errorf("help has no column list for view %s", v.Name)
				}
				for _, c := range v.Columns {
					if !strings.Contains(help, "- "+c.Name+" ("+c.Type+"): "+c.Description) {
						t.Errorf("help does not describe %s.%s (%s)", v.Name, c.Name, c.Type)
					}
				}
			}
			for _, r := range d.Relations() {
				if !strings.Contains(help, r) {
					t.Errorf("help never names relation %q", r)
				}
			}
			for _, a := range d.Aliases {
				if !strings.Contains(help, "'"+a+"'") {
					t.Errorf("help does not show alias %q quoted as a query must write it", a)
				}
			}
			if d.Summary == "" || !strings.Contains(help, d.Summary) {
				t.Error("help lacks the summary")
			}
			if d.WhenToUse == "" || !strings.Contains(help, d.WhenToUse) {
				t.Error("help lacks when to use the tool")
			}
			for _, c := range d.Columns {
				if c.SchemaFile == "" {
					continue
				}
				// The JSON columns carry an example the agent can base a LIKE pattern on.
				if !strings.Contains(help, "- "+c.Name+": ") || !strings.Contains(help, c.Example) {
					t.Errorf("help lacks the JSON shape of %s", c.Name)
				}
			}
		})
	}
}

func TestHelpStatesTheRules(t *testing.T) {
	for _, d := range Public() {
		help := Help(d)
		for _, want := range []string{
			"ctool query " + d.Name + " --format json",
			"最大10件", "OFFSET", "truncated", d.ZeroMessage,
			"tokyo_now()", "is_open(store_id, tokyo_now())", "CAST(tokyo_now() AS DATE)",
		} {
			if !strings.Contains(help, want) {
				t.Errorf("%s help lacks %q", d.Name, want)
			}
		}
		for _, c := range d.Columns {
			if c.Hidden && !strings.Contains(help, c.Name+" は結合や絞り込み") {
				t.Errorf("%s help does not say that %s is hidden from results", d.Name, c.Name)
			}
		}
	}
	// The tools point at each other for what they do not hold (seeds 001, 002).
	for _, c := range []struct {
		d    *Dataset
		want []string
	}{
		{Events, []string{"search_products", "search_stores", "期間限定"}},
		{Stores, []string{"store_hours", "is_open(store_id", "search_products", "search_events"}},
		{Products, []string{"search_events", "期間限定商品を教えて", "今月のキャンペーン商品は？"}},
		{Profiles, []string{"primary_store_name", "narrative", "profile_idを指定してください", "ユーザーが見つかりません: ", "NARRATIVE_DATA_FILE", "user_example"}},
	} {
		help := Help(c.d)
		for _, w := range c.want {
			if !strings.Contains(help, w) {
				t.Errorf("%s help lacks %q", c.d.Name, w)
			}
		}
	}
	if strings.Contains(Help(Profiles), "ctool query") {
		t.Error("the profile help must not offer SQL")
	}
}

func TestHelpHoldsNoDataCountsAndIsSmall(t *testing.T) {
	for _, d := range All() {
		help := Help(d)
		if got := dataCounts(help, RowCap, 0); len(got) > 0 {
			t.Errorf("%s help states data counts %q", d.Name, got)
		}
		if n := utf8.RuneCountInString(help); n > maxHelpRunes {
			t.Errorf("%s help is %d characters, more than %d", d.Name, n, maxHelpRunes)
		}
		if n := utf8.RuneCountInString(help); n < 500 {
			t.Errorf("%s help is only %d characters; the seeds ask for a detailed description", d.Name, n)
		}
		if !utf8.ValidString(help) || strings.Contains(help, "\t") || strings.Contains(help, "\n\n\n") {
			t.Errorf("%s help has invalid UTF-8, tabs or runs of blank lines", d.Name)
		}
		if !strings.HasSuffix(help, "\n") || strings.HasSuffix(help, "\n\n") {
			t.Errorf("%s help should end with exactly one newline", d.Name)
		}
	}
}

func TestHelpShowsEveryExample(t *testing.T) {
	for _, d := range Public() {
		min := 5
		if d == Stores {
			min = 8
		}
		if len(d.Examples) < min {
			t.Errorf("%s has %d examples, want at least %d", d.Name, len(d.Examples), min)
		}
		help := Help(d)
		seen := map[string]bool{}
		for _, e := range d.Examples {
			if e.Question == "" || e.SQL == "" {
				t.Errorf("%s has an empty example: %+v", d.Name, e)
			}
			if seen[e.SQL] {
				t.Errorf("%s repeats the example %q", d.Name, e.SQL)
			}
			seen[e.SQL] = true
			if !strings.Contains(help, e.Question) {
				t.Errorf("%s help lacks the question %q", d.Name, e.Question)
			}
			// The help indents continuation lines; each line of the SQL must be there as written.
			for _, line := range strings.Split(e.SQL, "\n") {
				if !strings.Contains(help, "   "+line+"\n") {
					t.Errorf("%s help lacks the SQL line %q", d.Name, line)
				}
			}
			if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(e.SQL)), "SELECT") && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(e.SQL)), "WITH") {
				t.Errorf("%s example is not a SELECT: %q", d.Name, e.SQL)
			}
			if strings.Contains(e.SQL, ";") {
				t.Errorf("%s example has a ';': %q", d.Name, e.SQL)
			}
		}
	}
	// Profiles are looked up, not queried: the help shows the command instead of SQL.
	if len(Profiles.Examples) != 0 {
		t.Error("profiles must not have SQL examples")
	}
	if !strings.Contains(Help(Profiles), "ctool profile --format json user_example") {
		t.Error("the profile help lacks its example command")
	}
}

// The seeds' own example queries (000, 002, 003) are among the examples, verbatim but for LIMIT 10
// and the place.
func TestHelpKeepsTheSeedExamples(t *testing.T) {
	for _, c := range []struct {
		d   *Dataset
		sql string
	}{
		{Events, `SELECT * FROM 'events.csv' WHERE cost LIKE '%"is_free": true%'`},
		{Events, `SELECT * FROM 'events.csv' WHERE date_time LIKE '2025-10%'`},
		{Events, `SELECT * FROM 'events.csv' WHERE event_name LIKE '%BMW%' OR description LIKE '%BMW%'`},
		{Stores, "SELECT store_name, address, parking FROM 'stores.csv'\nWHERE parking LIKE '%\"available\": true%'"},
		{Stores, `SELECT * FROM 'stores.csv' WHERE Biz_Entertainment_Available = 'TRUE'`},
		// 000's search by area is address LIKE '%麻布台%': the examples name no place (a build's
		// place.json does), so the same query on a floor stands in for it.
		{Stores, `SELECT * FROM 'stores.csv' WHERE address LIKE '%B1F%'`},
		{Products, `SELECT * FROM 'filtered_product_data.csv' WHERE product_name LIKE '%寿司%'`},
		{Products, `SELECT * FROM 'filtered_product_data.csv' WHERE product_description LIKE '%1,000円%'`},
		{Products, `SELECT * FROM 'filtered_product_data.csv' WHERE tag = 'ギフト'`},
	} {
		found := false
		for _, e := range c.d.Examples {
			found = found || e.SQL == c.sql
		}
		if !found {
			t.Errorf("%s examples lack the seed query %q", c.d.Name, c.sql)
		}
	}
}

func TestDescribeRoundTrips(t *testing.T) {
	for _, d := range All() {
		doc := DescribeWith(d, nil)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		var back Doc
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if !reflect.DeepEqual(doc, back) {
			t.Errorf("%s: Describe does not survive a JSON round trip:\n%+v\n%+v", d.Name, doc, back)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Errorf("%s: a second marshal differs", d.Name)
		}
		if doc.Tool != d.Tool || doc.Dataset != d.Name || len(doc.Columns) != len(d.Columns) || len(doc.Examples) != len(d.Examples) {
			t.Errorf("%s: Describe lost the tool, dataset, columns or examples", d.Name)
		}
		for _, c := range doc.Columns {
			if c.JSONSchema != nil {
				compileDraft7(t, d.Name+"."+c.Name+" (described)", withDraft7(t, c.JSONSchema))
			}
		}
		if !d.Private && len(doc.Relations) != 1+len(d.Views) {
			t.Errorf("%s: %d relations described, want the table and %d views", d.Name, len(doc.Relations), len(d.Views))
		}
	}
}

// withDraft7 puts back the $schema Describe strips, so the described schema can be compiled as draft-07.
func withDraft7(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["$schema"] = "http://json-schema.org/draft-07/schema#"
	b, _ := json.Marshal(m)
	return string(b)
}

func TestManifest(t *testing.T) {
	tools := Manifest()
	if len(tools) != len(agentTools) {
		t.Fatalf("Manifest has %d tools, want %d", len(tools), len(agentTools))
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		d, ok := agentTools[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if seen[tool.Name] {
			t.Errorf("tool %q listed twice", tool.Name)
		}
		seen[tool.Name] = true
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Description != Brief(d, nil, SchemaCommand(d, "")) {
				t.Error("description is not the dataset's Brief()")
			}
			s := compileDraft7(t, tool.Name+" input_schema", string(tool.InputSchema))
			param, placeholder := "sql_query", "{sql_query}"
			valid := `{"sql_query": "SELECT 1"}`
			if d.Private {
				param, placeholder = "profile_id", "{profile_id}"
				valid = `{"profile_id": "x"}`
			}
			accept := func(doc string, want bool) {
				t.Helper()
				res, err := s.Validate(gojsonschema.NewStringLoader(doc))
				if err != nil {
					t.Fatalf("validate %s: %v", doc, err)
				}
				if res.Valid() != want {
					t.Errorf("input_schema accepts %s: %v, want %v (%v)", doc, res.Valid(), want, res.Errors())
				}
			}
			accept(valid, true)
			accept(`{}`, false)
			accept(`{"`+param+`": 1}`, false)
			accept(`{"`+param+`": ""}`, false)
			accept(`{"`+param+`": null}`, false)
			accept(strings.TrimSuffix(valid, "}")+`, "extra": "x"}`, false)
			accept(`[]`, false)
			other := map[string]string{"sql_query": "profile_id", "profile_id": "sql_query"}[param]
			accept(`{"`+other+`": "x"}`, false)

			// The argv puts the argument in as one element; the command is the same words.
			n := 0
			for _, a := range tool.Argv {
				if a == placeholder {
					n++
				}
			}
			if n != 1 || tool.Argv[len(tool.Argv)-1] != placeholder {
				t.Errorf("argv %q should end with the one placeholder %s", tool.Argv, placeholder)
			}
			if tool.Argv[0] != "ctool" || strings.Join(tool.Argv, " ") != tool.Command {
				t.Errorf("command %q and argv %q disagree", tool.Command, tool.Argv)
			}
			// "--" ends the flags, so an argument starting with "-" (a "-- comment" line) stays an argument.
			want := []string{"ctool", "query", d.Name, "--format", "json", "--"}
			if d.Private {
				want = []string{"ctool", "profile", "--format", "json", "--"}
			}
			if !reflect.DeepEqual(tool.Argv[:len(tool.Argv)-1], want) {
				t.Errorf("argv %q, want %q + %s", tool.Argv, want, placeholder)
			}
		})
	}
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var back []Tool
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tools) {
		t.Errorf("Manifest does not survive a JSON round trip: %v", err)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// An empty cell is NULL in the database: no text the agent reads may promise an empty string (空文字), and the help
// says how an empty cell reads.
func TestHelpSaysEmptyCellsAreNull(t *testing.T) {
	for _, d := range All() {
		help := Help(d)
		for _, bad := range []string{"空文字", "''）", "!= ''", "<> ''"} {
			if strings.Contains(help, bad) {
				t.Errorf("%s help says empty cells are '' (%q)", d.Name, bad)
			}
		}
		if !d.Private && !strings.Contains(help, "空のセルは NULL") {
			t.Errorf("%s help does not say that an empty cell is NULL", d.Name)
		}
	}
}

// Every list of a tool description and of the manifest is a JSON array, [] when empty: never null and
// never left out. The walk follows the Go types, so a list field added later is checked too.
func TestDescribeListsAreArrays(t *testing.T) {
	for _, d := range All() {
		b, err := json.Marshal(DescribeWith(d, nil))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		checkLists(t, d.Name, reflect.TypeOf(Doc{}), doc)
	}
	// The profile tool has no relations, no clock rules and no SQL examples: the lists are still there.
	b, _ := json.Marshal(DescribeWith(Profiles, nil))
	for _, key := range []string{`"relations":[]`, `"now":[]`, `"examples":[]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("the profile description lacks %s: %s", key, b)
		}
	}
	b, _ = json.Marshal(Manifest())
	var tools []map[string]any
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		checkLists(t, fmt.Sprint(tool["name"]), reflect.TypeOf(Tool{}), tool)
	}
}

// checkLists checks that in v, the JSON of a value of type typ, every slice field is an array, and
// walks into the structs it holds.
func checkLists(t *testing.T, where string, typ reflect.Type, v map[string]any) {
	t.Helper()
	raw := reflect.TypeOf(json.RawMessage(nil))
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || f.Type == raw {
			continue
		}
		at := where + "." + name
		switch f.Type.Kind() {
		case reflect.Slice:
			list, ok := v[name].([]any)
			if !ok {
				t.Errorf("%s is %#v, want a JSON array", at, v[name])
				continue
			}
			if f.Type.Elem().Kind() == reflect.Struct {
				for j, e := range list {
					checkLists(t, fmt.Sprintf("%s[%d]", at, j), f.Type.Elem(), e.(map[string]any))
				}
			}
		case reflect.Struct:
			if obj, ok := v[name].(map[string]any); ok {
				checkLists(t, at, f.Type, obj)
			}
		}
	}
}

// The commands of a manifest read from a build name it, so they run from any directory; a path that
// needs quoting is quoted in the shell form and one element in argv.
func TestManifestNamesTheDatabase(t *testing.T) {
	for _, tool := range ManifestWith(nil, "/data/my builds/ctool.duckdb", ForCommands) {
		want := "--db '/data/my builds/ctool.duckdb' -- {"
		if !strings.Contains(tool.Command, want) {
			t.Errorf("%s: command %q lacks %q", tool.Name, tool.Command, want)
		}
		if tool.Name != Profiles.Tool && !strings.Contains(tool.Description, " --db '/data/my builds/ctool.duckdb'\n") {
			t.Errorf("%s: the description's ctool schema command lacks the build", tool.Name)
		}
		n := len(tool.Argv)
		if n < 4 || tool.Argv[n-4] != "--db" || tool.Argv[n-3] != "/data/my builds/ctool.duckdb" || tool.Argv[n-2] != "--" {
			t.Errorf("%s: argv %q lacks --db PATH before --", tool.Name, tool.Argv)
		}
	}
}

// Each brief stands alone (a framework registers tools one by one): it names its tool, the row cap,
// the Tokyo clock, where the full description is, and its typed views; CLI-only notes stay out.
func TestBriefStandsAlone(t *testing.T) {
	for _, d := range Public() {
		b := Brief(d, nil, SchemaCommand(d, ""))
		for _, want := range []string{d.Tool + ":", "tokyo_now()", "全説明: ctool schema " + d.Name + "\n", fmt.Sprintf("最大%d件", RowCap)} {
			if !strings.Contains(b, want) {
				t.Errorf("%s brief lacks %q", d.Name, want)
			}
		}
		for _, v := range d.Views {
			if !strings.Contains(b, "- "+v.Name+":") {
				t.Errorf("%s brief lacks the view %s", d.Name, v.Name)
			}
		}
		if n := len(BriefExamples(d)); n < 2 || n > maxBriefExamples {
			t.Errorf("%s brief has %d examples, want 2 to %d", d.Name, n, maxBriefExamples)
		}
		for _, cli := range []string{"NARRATIVE_DATA_FILE", "PRAGMA", "標準入力"} {
			if strings.Contains(b, cli) || strings.Contains(FullHelp(d, nil), cli) {
				t.Errorf("%s brief or reference has the CLI-only note %q", d.Name, cli)
			}
		}
	}
	if strings.Contains(FullHelp(Profiles, nil), "NARRATIVE_DATA_FILE") || !strings.Contains(Help(Profiles), "NARRATIVE_DATA_FILE") {
		t.Error("NARRATIVE_DATA_FILE belongs to the CLI help only")
	}
}

// `ctool tools` is as lean as the MCP tools/list (mcpserver's test bounds that one on a build).
func TestManifestIsLean(t *testing.T) {
	b, err := json.Marshal(Manifest())
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCount(b); n > 11000 {
		t.Errorf("the manifest is %d characters, more than 11000", n)
	}
}

// The manifest of `ctool tools` is read by agents that run commands: its descriptions point to
// `ctool schema`, never to an MCP address they cannot open; the MCP server's point to the resource.
func TestManifestPointsWhereItsReaderCanGo(t *testing.T) {
	for _, tool := range ManifestWith(nil, "", ForCommands) {
		if strings.Contains(tool.Description, "ctool://") {
			t.Errorf("%s: the command manifest names an MCP address: %s", tool.Name, tool.Description)
		}
	}
	for i, tool := range ManifestWith(nil, "", ForMCP) {
		d := append(Public(), Profiles)[i]
		if !d.Private && !strings.Contains(tool.Description, "全説明: "+ResourceURI(d)+"\n") {
			t.Errorf("%s: the MCP description does not point to %s", tool.Name, ResourceURI(d))
		}
	}
}
