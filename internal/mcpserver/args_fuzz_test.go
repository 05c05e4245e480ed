package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// FuzzArgument: the plain-string shortcut answers every argument exactly as the schema does.
func FuzzArgument(f *testing.F) {
	for _, seed := range []string{
		`{"sql_query": "SELECT 1"}`, `{"sql_query": ""}`, `{"sql_query": 5}`, `{"sql_query": "a", "b": 1}`,
		`{"sql_query": "a", "sql_query": 1}`, `{"sql_query": 1, "sql_query": "a"}`, `{"profile_id": "user_a"}`,
		`{"profile_id": ["a"]}`, `{"sql_query": "\ud800"}`, "{\"sql_query\": \"\xff\"}", `{"sql_query": "` + strings.Repeat("あ", 200) + `"}`,
		`{ "sql_query" : "x" }`, `{"SQL_QUERY": "x"}`, `null`, ``, `[]`, `{"sql_query": null}`,
	} {
		f.Add(seed)
	}
	var args []*argument
	for _, m := range schema.Manifest() {
		a, err := newArgument(m, datasetOf(m.Name))
		if err != nil {
			f.Fatal(err)
		}
		args = append(args, a)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, a := range args {
			fast, fastErr := a.read(json.RawMessage(raw), true)
			slow, slowErr := a.read(json.RawMessage(raw), false)
			if fast != slow || errString(fastErr) != errString(slowErr) {
				t.Fatalf("%s %q: shortcut %q, %v; schema %q, %v", a.tool, raw, fast, fastErr, slow, slowErr)
			}
		}
	})
}

// errString is err's message with its problems sorted: the schema lists them in no fixed order.
func errString(err error) string {
	if err == nil {
		return ""
	}
	problems := strings.Split(err.Error(), "; ")
	slices.Sort(problems)
	return strings.Join(problems, "; ")
}
