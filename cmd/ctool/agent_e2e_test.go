package main

// End-to-end tests of what an agent sees: the CLI runs in-process through run(), against a database
// ingested once from the sample data, and every check goes through the same command lines an agent or
// its host would use.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/xeipuuv/gojsonschema"
)

const (
	agentInput = "../../input"
	agentDocs  = "../../docs/transcripts.md"

	transcriptsBegin = "<!-- transcripts:begin -->"
	transcriptsEnd   = "<!-- transcripts:end -->"
)

// agentResult is what one ctool command line produced.
type agentResult struct {
	stdout, stderr string
	code           int
}

func (r agentResult) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// agentEnv is the environment an agent's host gives ctool; tests pass it to the command instead of
// changing the test process's own variables.
type agentEnv map[string]string

// with returns a copy of the environment with one more variable.
func (e agentEnv) with(k, v string) agentEnv {
	c := agentEnv{k: v}
	for ek, ev := range e {
		if ek != k {
			c[ek] = ev
		}
	}
	return c
}

// run runs one ctool command line in-process with stdin.
func (e agentEnv) run(stdin string, args ...string) agentResult {
	var stdout, stderr bytes.Buffer
	code := runWith(&env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return e[k] }},
		append([]string{"ctool"}, args...))
	return agentResult{stdout.String(), stderr.String(), code}
}

func decodeQuery(t *testing.T, r agentResult) querytest.Doc {
	t.Helper()
	var q querytest.Doc
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		t.Fatalf("stdout is not the query JSON shape: %v\n%s", err, r)
	}
	return q
}

// decodeError reads the error document an agent gets, and requires it to be the whole output.
func decodeError(t *testing.T, r agentResult) string {
	t.Helper()
	msg, _, err := jsonError(r.stdout)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	return msg
}

// sampleProfiles reads a profiles file of the sample data, keyed by profile_id.
func sampleProfiles(t *testing.T, name string) (header []string, rows map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(agentInput, name))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	header, err = r.Read()
	if err != nil {
		t.Fatal(err)
	}
	rows = map[string][]string{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows[rec[0]] = rec
	}
	return header, rows
}

// checkProfile checks a found profile: the eight keys in the seed's order, age and visits as JSON
// integers, and every value equal to the source CSV row (the narrative with its newlines).
func checkProfile(t *testing.T, r agentResult, source, id string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("profile %s: %s", id, r)
	}
	header, rows := sampleProfiles(t, source)
	want, ok := rows[id]
	if !ok {
		t.Fatalf("%s is not in %s", id, source)
	}
	wantKeys := []string{"profile_id", "age", "gender", "user_type", "primary_store_id", "primary_store_name", "visits", "narrative"}
	if !reflect.DeepEqual(header, wantKeys) {
		t.Fatalf("%s header %v", source, header)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("profile output is not a JSON object: %s", r)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		key := tok.(string)
		keys = append(keys, key)
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		i := len(keys) - 1
		if i >= len(wantKeys) {
			continue
		}
		switch key {
		case "age", "visits":
			n, ok := v.(json.Number)
			if !ok || n.String() != want[i] {
				t.Errorf("%s = %#v, want the JSON integer %s", key, v, want[i])
			}
			if _, err := strconv.Atoi(n.String()); err != nil {
				t.Errorf("%s = %s is not an integer", key, n)
			}
		default:
			if s, ok := v.(string); !ok || s != want[i] {
				t.Errorf("%s = %#v, want %q", key, v, want[i])
			}
		}
	}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys %v, want %v in this order", keys, wantKeys)
	}
	if !strings.Contains(want[7], "\n") {
		t.Errorf("the sample narrative of %s has no newline; the check of newlines is vacuous", id)
	}
	if dec.More() {
		t.Error("more than one JSON value on stdout")
	}
}

func TestAgentE2E(t *testing.T) {
	t.Parallel()
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	dir := filepath.Dir(db)
	profilesFiles, _ := filepath.Glob(filepath.Join(dir, "ctool.profiles-*.duckdb"))
	if len(profilesFiles) != 1 {
		t.Fatalf("want one profiles file beside the database, found %v", profilesFiles)
	}
	profilesDB := profilesFiles[0]
	a := agentEnv{"CTOOL_DB": db}

	t.Run("HelpExamplesReturnRows", func(t *testing.T) {
		r := a.run("", "schema", "--format", "json")
		if r.code != 0 {
			t.Fatal(r)
		}
		var docs []struct {
			Tool     string `json:"tool"`
			Dataset  string `json:"dataset"`
			Examples []struct {
				Question string `json:"question"`
				SQL      string `json:"sql"`
			} `json:"examples"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &docs); err != nil {
			t.Fatalf("schema --format json: %v", err)
		}
		ran := map[string]int{}
		for _, doc := range docs {
			if doc.Dataset == "profiles" {
				if len(doc.Examples) != 0 {
					t.Error("the profile tool has SQL examples")
				}
				continue
			}
			for i, e := range doc.Examples {
				t.Run(fmt.Sprintf("%s/%02d", doc.Dataset, i+1), func(t *testing.T) {
					r := a.run("", "query", doc.Dataset, "--format", "json", e.SQL)
					if r.code != 0 {
						t.Fatalf("%s\n%s\n%s", e.Question, e.SQL, r)
					}
					q := decodeQuery(t, r)
					if q.Count == nil || *q.Count < 1 {
						t.Fatalf("help example returns no rows: %s\n%s\n%s", e.Question, e.SQL, r.stdout)
					}
					if *q.Count != len(q.Results) || *q.Count > 10 || q.Truncated == nil {
						t.Errorf("count %d, %d results, truncated %v", *q.Count, len(q.Results), q.Truncated)
					}
					if *q.Truncated != (q.Hint != "") {
						t.Errorf("truncated %v but hint %q", *q.Truncated, q.Hint)
					}
				})
				ran[doc.Dataset]++
			}
		}
		for _, d := range []string{"events", "stores", "products"} {
			if ran[d] == 0 {
				t.Errorf("no examples of %s ran", d)
			}
		}
	})

	t.Run("QueryHelpIsTheToolDescription", func(t *testing.T) {
		for _, c := range []struct{ schema, command []string }{
			// --help reads the build CTOOL_DB names, as `ctool schema` does: the same label values.
			{[]string{"schema", "events"}, []string{"query", "events", "--help"}},
			{[]string{"schema", "stores"}, []string{"query", "stores", "--help"}},
			{[]string{"schema", "products"}, []string{"query", "products", "--help"}},
			{[]string{"schema", "profile"}, []string{"profile", "--help"}},
		} {
			s := a.run("", c.schema...)
			h := a.run("", c.command...)
			if s.code != 0 || h.code != 0 || len(s.stdout) < 500 {
				t.Fatalf("%v: %s\n%v: %s", c.schema, s, c.command, h)
			}
			_, desc, ok := strings.Cut(h.stdout, "DESCRIPTION:\n")
			if !ok {
				t.Fatalf("%v has no DESCRIPTION section", c.command)
			}
			// The help indents the description by three spaces.
			lines := strings.Split(desc, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, "   ")
			}
			if !strings.Contains(strings.Join(lines, "\n"), s.stdout) {
				t.Errorf("ctool %s does not contain the text of ctool %s", strings.Join(c.command, " "), strings.Join(c.schema, " "))
			}
			if !strings.Contains(h.stdout, "EXIT STATUS:") {
				t.Errorf("ctool %s does not list the exit statuses", strings.Join(c.command, " "))
			}
		}
	})

	t.Run("QueryShapes", func(t *testing.T) {
		// The same SQL as an argument and on stdin.
		sql := "SELECT store_name, category FROM stores WHERE store_id = 'STR-0001'"
		arg := a.run("", "query", "stores", "--format", "json", sql)
		b := a.run(sql+"\n", "query", "stores", "--format", "json", "-")
		if arg.code != 0 || arg.stdout != b.stdout || b.code != 0 {
			t.Fatalf("argument and stdin differ:\n%s\n%s", arg, b)
		}
		q := decodeQuery(t, arg)
		if *q.Count != 1 || *q.Truncated || q.Results[0]["store_name"] != "麻布台ヒルズマーケット" {
			t.Errorf("unexpected result %s", arg.stdout)
		}
		// More than the cap: 10 rows, truncated, and a hint that names OFFSET.
		r := a.run("", "query", "products", "--format", "json", "SELECT product_name FROM products ORDER BY product_name")
		q = decodeQuery(t, r)
		if r.code != 0 || *q.Count != 10 || !*q.Truncated || !strings.Contains(q.Hint, "OFFSET") {
			t.Errorf("cap: %s", r)
		}
		next := decodeQuery(t, a.run("", "query", "products", "--format", "json", "SELECT product_name FROM products ORDER BY product_name LIMIT 10 OFFSET 10"))
		if *next.Count != 10 || next.Results[0]["product_name"] == q.Results[0]["product_name"] {
			t.Errorf("OFFSET did not page: %v", next.Results)
		}
		r = a.run("", "query", "products", "--format", "json", "SELECT product_name FROM products LIMIT 1000")
		if q = decodeQuery(t, r); *q.Count != 10 || !*q.Truncated {
			t.Errorf("LIMIT 1000 was not capped: %s", r)
		}
		// Nothing matched: a success with the dataset's message.
		r = a.run("", "query", "stores", "--format", "json", "SELECT store_name FROM stores WHERE store_name = 'nothing'")
		if q = decodeQuery(t, r); r.code != 0 || *q.Count != 0 || q.Message != "検索条件に一致する店舗が見つかりませんでした" {
			t.Errorf("zero rows: %s", r)
		}
		// products never show store_id.
		r = a.run("", "query", "products", "--format", "json", "SELECT * FROM products WHERE store_id = 'STR-0014' LIMIT 1")
		if q = decodeQuery(t, r); r.code != 0 || *q.Count != 1 || q.Results[0]["store_id"] != nil || strings.Contains(r.stdout, "STR-0014") {
			t.Errorf("store_id shown: %s", r)
		}
		// A failed query says what went wrong.
		r = a.run("", "query", "events", "--format", "json", "SELECT nope FROM events")
		if r.code != 1 || !strings.Contains(decodeError(t, r), "nope") {
			t.Errorf("bad column: %s", r)
		}
		r = a.run("", "query", "events", "--format", "json", "DELETE FROM events")
		if r.code != 1 || !strings.Contains(decodeError(t, r), "SELECT") {
			t.Errorf("DELETE: %s", r)
		}
	})

	t.Run("ProfileFound", func(t *testing.T) {
		checkProfile(t, a.run("", "profile", "user_criollo_heavy"), "narrative_data.csv", "user_criollo_heavy")
		checkProfile(t, a.run("", "profile", "--format", "json", "user_criollo_heavy"), "narrative_data.csv", "user_criollo_heavy")
		r := a.run("", "profile", "--format", "table", "user_criollo_heavy")
		if r.code != 0 || !strings.Contains(r.stdout, "洋菓子店クリオロ") || !strings.Contains(r.stdout, "narrative:\n") {
			t.Errorf("table: %s", r)
		}
	})

	t.Run("ProfileErrors", func(t *testing.T) {
		for _, args := range [][]string{{"profile"}, {"profile", ""}, {"profile", "  "}, {"profile", "--format", "json"}} {
			r := a.run("", args...)
			if r.code != 2 || decodeError(t, r) != "profile_idを指定してください" {
				t.Errorf("%q: %s", args, r)
			}
		}
		r := a.run("", "profile", "nobody")
		if r.code != 1 || decodeError(t, r) != "ユーザーが見つかりません: nobody" {
			t.Errorf("unknown id: %s", r)
		}
		if want := `{"error":"ユーザーが見つかりません: nobody","kind":"not_found","hint":"profiles are read from narrative_data.csv only (NARRATIVE_DATA_FILE); set NARRATIVE_DATA_FILE where ctool runs to read another ingested narrative_data*.csv"}`; strings.TrimSpace(r.stdout) != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
		for _, id := range []string{"' OR '1'='1", "%", "*", "user_criollo_heavy' --", "user_%", "USER_CRIOLLO_HEAVY"} {
			r := a.run("", "profile", id)
			if r.code != 1 || decodeError(t, r) != "ユーザーが見つかりません: "+id {
				t.Errorf("id %q: %s", id, r)
			}
		}
		for _, args := range [][]string{
			{"profile", "user_criollo_heavy", "user_diverse_frequent"},
			{"profile", "user_criollo_heavy", "nobody"},
			{"profile", "--format", "table", "a", "b"},
			{"profile", "--format", "yaml", "user_criollo_heavy"},
		} {
			r := a.run("", args...)
			if r.code != 2 || strings.Contains(r.stdout, "narrative") || strings.Contains(r.stdout, "洋菓子店クリオロ") {
				t.Errorf("%q: %s", args, r)
			}
		}
	})

	t.Run("ProfileSourceSwitch", func(t *testing.T) {
		a := a.with("NARRATIVE_DATA_FILE", "narrative_data_2.csv")
		checkProfile(t, a.run("", "profile", "user_diverse_frequent"), "narrative_data_2.csv", "user_diverse_frequent")
		r := a.run("", "profile", "user_criollo_heavy")
		if r.code != 1 || decodeError(t, r) != "ユーザーが見つかりません: user_criollo_heavy" {
			t.Errorf("user_criollo_heavy from narrative_data_2.csv: %s", r)
		}
	})

	t.Run("ProfileDefaultSource", func(t *testing.T) {
		for _, v := range []string{"", "narrative_data.csv"} {
			a := a.with("NARRATIVE_DATA_FILE", v)
			checkProfile(t, a.run("", "profile", "user_criollo_heavy"), "narrative_data.csv", "user_criollo_heavy")
			r := a.run("", "profile", "user_diverse_frequent")
			if r.code != 1 || decodeError(t, r) != "ユーザーが見つかりません: user_diverse_frequent" {
				t.Errorf("NARRATIVE_DATA_FILE=%q: user_diverse_frequent: %s", v, r)
			}
		}
	})

	t.Run("ProfileHostileSource", func(t *testing.T) {
		abs, _ := filepath.Abs(filepath.Join(agentInput, "narrative_data.csv"))
		for _, v := range []string{
			"../input/narrative_data.csv", "/etc/passwd", "narrative_data.csv/../x", "events.csv",
			"narrative_data*.csv", abs, "./narrative_data.csv", "narrative_data.csv ", "narrative_data?.csv",
			"narrative_data_3.csv", // a fine name, but nothing was ingested from it
		} {
			t.Run(v, func(t *testing.T) {
				a := a.with("NARRATIVE_DATA_FILE", v)
				for _, id := range []string{"user_criollo_heavy", "user_diverse_frequent"} {
					r := a.run("", "profile", id)
					if r.code != 2 {
						t.Errorf("exit %d, want 2\n%s", r.code, r)
					}
					msg := decodeError(t, r)
					if !strings.Contains(msg, "NARRATIVE_DATA_FILE") {
						t.Errorf("the error does not name NARRATIVE_DATA_FILE: %s", msg)
					}
					if strings.Contains(r.stdout, "narrative\"") || strings.Contains(r.stdout, id) {
						t.Errorf("output shows a profile: %s", r)
					}
				}
			})
		}
	})

	t.Run("NoQueryRouteToProfiles", func(t *testing.T) {
		_, secrets := sampleProfiles(t, "narrative_data.csv")
		_, more := sampleProfiles(t, "narrative_data_2.csv")
		for id := range more {
			secrets[id] = more[id]
		}
		// The hostile corpus's routes to personal data, with this build's profiles file.
		var queries []string
		for _, c := range guardtest.Hostile(t.TempDir(), profilesDB) {
			if strings.Contains(strings.ToLower(c.SQL), "profile") || strings.Contains(c.SQL, "narrative") {
				queries = append(queries, c.SQL)
			}
		}
		if len(queries) < 15 {
			t.Fatalf("only %d profile routes in the hostile corpus", len(queries))
		}
		for i, sql := range queries {
			// Every dataset's query reads through the same guard; take turns.
			d := []string{"events", "stores", "products"}[i%3]
			for _, viaStdin := range []bool{false, true} {
				r := a.run("", "query", d, "--format", "json", sql)
				if viaStdin {
					r = a.run(sql, "query", d, "--format", "json", "-")
				}
				if r.code != 1 {
					t.Errorf("%s: %s: exit %d, want 1\n%s", d, sql, r.code, r)
				}
				decodeError(t, r)
				for id, rec := range secrets {
					if strings.Contains(r.stdout+r.stderr, rec[7][:30]) || (!strings.Contains(sql, id) && strings.Contains(r.stdout+r.stderr, id)) {
						t.Errorf("%s: %s: output shows profile %s\n%s", d, sql, id, r)
					}
				}
			}
		}
	})

	t.Run("Tools", func(t *testing.T) {
		r := a.run("", "tools")
		if r.code != 0 {
			t.Fatal(r)
		}
		var tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Command     string          `json:"command"`
			Argv        []string        `json:"argv"`
		}
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tools); err != nil {
			t.Fatalf("ctool tools is not the manifest JSON: %v", err)
		}
		schemaArg := map[string]string{"search_events": "events", "search_stores": "stores", "search_products": "products", "get_user_profile": "profile"}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			arg, ok := schemaArg[tool.Name]
			if !ok {
				t.Errorf("unexpected tool %q", tool.Name)
				continue
			}
			// The description is the lean one; ctool schema gives the full one, longer.
			if s := a.run("", "schema", arg); s.code != 0 || tool.Description == "" || len(tool.Description) >= len(s.stdout) {
				t.Errorf("%s: description is not shorter than ctool schema %s", tool.Name, arg)
			}
			sl := gojsonschema.NewSchemaLoader()
			sl.Draft = gojsonschema.Draft7
			sl.Validate = true
			s, err := sl.Compile(gojsonschema.NewBytesLoader(tool.InputSchema))
			if err != nil {
				t.Errorf("%s: input_schema does not compile: %v", tool.Name, err)
				continue
			}
			param := "sql_query"
			if arg == "profile" {
				param = "profile_id"
			}
			for doc, want := range map[string]bool{`{"` + param + `": "x"}`: true, `{}`: false, `{"` + param + `": 1}`: false} {
				res, err := s.Validate(gojsonschema.NewStringLoader(doc))
				if err != nil || res.Valid() != want {
					t.Errorf("%s: input_schema on %s: %v, want %v", tool.Name, doc, err == nil && res.Valid(), want)
				}
			}
			// The argv, with its placeholder replaced, is a working command line.
			argv := append([]string(nil), tool.Argv...)
			for i, a := range argv {
				if a == "{"+param+"}" {
					argv[i] = map[string]string{"sql_query": "SELECT 1 AS one", "profile_id": "user_criollo_heavy"}[param]
				}
			}
			if argv[0] != "ctool" {
				t.Fatalf("%s: argv %q", tool.Name, tool.Argv)
			}
			if r := a.run("", argv[1:]...); r.code != 0 || !json.Valid([]byte(r.stdout)) {
				t.Errorf("%s: argv %q does not run: %s", tool.Name, argv, r)
			}
		}
		if want := []string{"search_stores", "search_events", "search_products", "get_user_profile"}; !reflect.DeepEqual(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}
		text := a.run("", "tools", "--format", "text")
		if text.code != 0 || strings.Count(text.stdout, "共通のきまり") != 1 || strings.Count(text.stdout, "\n== ") != 4 {
			t.Errorf("tools --format text: %s", text)
		}
		if r := a.run("", "tools", "--format", "yaml"); r.code != 2 {
			t.Errorf("tools --format yaml: %s", r)
		}
	})

	t.Run("Transcripts", func(t *testing.T) {
		cmds := transcriptCommands(t)
		if len(cmds) < 20 {
			t.Fatalf("only %d commands in the transcript section of %s", len(cmds), agentDocs)
		}
		for i, c := range cmds {
			t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
				a := a
				for k, v := range c.env {
					a = a.with(k, v)
				}
				r := a.run(c.stdin, c.args...)
				if r.code != c.exit {
					t.Errorf("line %d: %s\nexit %d, the transcript records %d\n%s", c.line, c.text, r.code, c.exit, r)
				}
			})
		}
	})
}

// seedQuestions are the manual test questions of the seeds; each must have a transcript.
var seedQuestions = []string{
	// 003
	"無料のイベントを探して", "10月に開催されるイベントは?", "BMWに関連するイベントを教えて", "事前登録が必要なイベントを検索して",
	// 000
	"ファミリー向けの店舗を探して", "駐車場がある店舗を教えて", "個室が利用できる店舗は?", "麻布台エリアの店舗を検索して", "ビジネス利用可能な店舗は?",
	// 001
	"麻布台ヒルズマーケットの営業時間は？", "バルコニーバイシックスの詳細情報を教えて", "駐車場があってファミリー向けの店舗は？",
	// 002
	"ギフトにおすすめの商品を教えて", "1000円くらいの商品は？", "麻布台ヒルズマーケットの商品を見せて", "フードカテゴリの商品を5件教えて",
	// 004
	"ctool profile --format json user_criollo_heavy", "ctool profile --format json nonexistent_user",
	"NARRATIVE_DATA_FILE=narrative_data_2.csv ctool profile --format json user_diverse_frequent",
}

// transcriptCommand is one recorded command of docs/transcripts.md.
type transcriptCommand struct {
	line  int
	text  string
	env   map[string]string
	args  []string // without the leading "ctool"
	stdin string
	exit  int
}

var exitLine = regexp.MustCompile(`^\(exit (\d+)\)$`)

// transcriptCommands reads the commands recorded between the transcript markers: a line "$ ctool ..."
// (optionally after VAR=value assignments, optionally ending in a <<'WORD' here-document whose lines
// follow) and, after its output, the line "(exit N)".
func transcriptCommands(t *testing.T) []transcriptCommand {
	t.Helper()
	b, err := os.ReadFile(agentDocs)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, transcriptsBegin)
	end := strings.Index(doc, transcriptsEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no %s … %s section", agentDocs, transcriptsBegin, transcriptsEnd)
	}
	offset := strings.Count(doc[:start], "\n")
	section := doc[start:end]
	for _, q := range seedQuestions {
		if !strings.Contains(section, q) {
			t.Errorf("the transcripts lack the seed question %q", q)
		}
	}
	lines := strings.Split(section, "\n")
	var cmds []transcriptCommand
	var pending *transcriptCommand
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := exitLine.FindStringSubmatch(line); m != nil {
			if pending == nil {
				t.Errorf("line %d: %s without a command", offset+i+1, line)
				continue
			}
			pending.exit, _ = strconv.Atoi(m[1])
			cmds = append(cmds, *pending)
			pending = nil
			continue
		}
		text, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			continue
		}
		if pending != nil {
			t.Errorf("line %d: command %q has no (exit N) line", pending.line, pending.text)
		}
		c := transcriptCommand{line: offset + i + 1, text: text, env: map[string]string{}}
		words, heredoc, err := shellWords(text)
		if err != nil {
			t.Fatalf("line %d: %v: %s", c.line, err, text)
		}
		for len(words) > 0 {
			k, v, ok := strings.Cut(words[0], "=")
			if !ok || !regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`).MatchString(k) {
				break
			}
			c.env[k] = v
			words = words[1:]
		}
		if len(words) == 0 || words[0] != "ctool" {
			t.Fatalf("line %d: not a ctool command: %s", c.line, text)
		}
		c.args = words[1:]
		if heredoc != "" {
			var body []string
			for i++; i < len(lines) && lines[i] != heredoc; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("line %d: here-document %s is not closed", c.line, heredoc)
			}
			c.stdin = strings.Join(body, "\n") + "\n"
		}
		pending = &c
	}
	if pending != nil {
		t.Errorf("line %d: command %q has no (exit N) line", pending.line, pending.text)
	}
	return cmds
}

// shellWords splits a command line as a POSIX shell would, for the subset the transcripts use:
// whitespace, '…', "…" with \" \\ \$ \` escapes, backslash escapes, and a final <<WORD or <<'WORD'
// here-document. Anything it does not understand (expansions, pipes, redirections) is an error, so a
// transcript cannot silently run something other than what it shows.
func shellWords(line string) (words []string, heredoc string, err error) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, "", fmt.Errorf("unclosed '")
			}
			cur.WriteString(string(rs[i+1 : j]))
			inWord = true
			i = j
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch rs[j] {
				case '\\':
					if j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
						j++
					}
				case '$', '`':
					return nil, "", fmt.Errorf("expansion inside \"…\" is not supported")
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, "", fmt.Errorf("unclosed \"")
			}
			i = j
		case c == '\\':
			if i+1 == len(rs) {
				return nil, "", fmt.Errorf("line continuation is not supported")
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case c == '<' && i+1 < len(rs) && rs[i+1] == '<' && !inWord:
			rest := strings.TrimSpace(string(rs[i+2:]))
			rest = strings.Trim(rest, "'")
			if !regexp.MustCompile(`^[A-Za-z_]+$`).MatchString(rest) {
				return nil, "", fmt.Errorf("unsupported here-document %q", string(rs[i:]))
			}
			flush()
			return words, rest, nil
		case strings.ContainsRune("|&;<>()$`*?[]{}", c), strings.ContainsRune("~#", c) && !inWord:
			return nil, "", fmt.Errorf("unsupported shell syntax %q", c)
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	flush()
	return words, "", nil
}

func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		line, heredoc string
		want          []string
	}{
		{`ctool query stores --format json "SELECT * FROM 'stores.csv' WHERE x LIKE '%\"a\": true%'"`, "",
			[]string{"ctool", "query", "stores", "--format", "json", `SELECT * FROM 'stores.csv' WHERE x LIKE '%"a": true%'`}},
		{`NARRATIVE_DATA_FILE=narrative_data_2.csv ctool profile user_diverse_frequent`, "",
			[]string{"NARRATIVE_DATA_FILE=narrative_data_2.csv", "ctool", "profile", "user_diverse_frequent"}},
		{`ctool query events --format json - <<'SQL'`, "SQL", []string{"ctool", "query", "events", "--format", "json", "-"}},
		{`ctool profile 'a b' c\ d ""`, "", []string{"ctool", "profile", "a b", "c d", ""}},
	} {
		words, heredoc, err := shellWords(c.line)
		if err != nil || heredoc != c.heredoc || !reflect.DeepEqual(words, c.want) {
			t.Errorf("shellWords(%s) = %q, %q, %v; want %q, %q", c.line, words, heredoc, err, c.want, c.heredoc)
		}
	}
	for _, line := range []string{`ctool query x "$(rm -rf /)"`, "ctool a | sh", "ctool a > f", `ctool "unclosed`, "ctool a; b", "ctool $HOME", "ctool narrative_data*.csv", "ctool ~/x"} {
		if _, _, err := shellWords(line); err == nil {
			t.Errorf("shellWords(%s) accepted unsupported syntax", line)
		}
	}
}
