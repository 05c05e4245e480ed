package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/schema"
)

// TestDescriptionsNameNobody: no description an agent or a person can read without the profile scope
// holds anything of a profile of the build it describes. An example that is a person in the data hands
// that person's profile to everyone (the seed's example user is in the sample data).
func TestDescriptionsNameNobody(t *testing.T) {
	t.Parallel()
	input := ingesttest.SampleInput(t)
	db := ingesttest.Build(t, input)
	described := map[string]string{}
	for _, args := range [][]string{{"--help"}, {"query", "--help"}, {"profile", "--help"}, {"schema", "--help"}, {"man"}} {
		described["ctool "+strings.Join(args, " ")] = cliOutput(t, nil, args...)
	}
	for _, args := range [][]string{{"tools"}, {"schema"}, {"schema", "--format", "json"}} {
		described["ctool "+strings.Join(args, " ")] = cliOutput(t, nil, append(args, "--db", db)...)
	}
	for _, d := range schema.All() {
		for _, format := range []string{"text", "json"} {
			args := []string{"schema", d.Name, "--format", format, "--db", db}
			described["ctool "+strings.Join(args[:4], " ")] = cliOutput(t, nil, args...)
		}
	}
	p := startMCP(t, nil, "--db", db)
	p.initialize(t)
	described["tools/list"] = string(p.call(t, "tools/list", nil).Result)
	list := p.call(t, "resources/list", nil)
	described["resources/list"] = string(list.Result)
	for _, d := range schema.All() {
		uri := "ctool://schema/" + d.Name
		described[uri] = string(p.call(t, "resources/read", map[string]any{"uri": uri}).Result)
	}
	for what, text := range described {
		if len(text) < 100 {
			t.Errorf("%s printed almost nothing: %q", what, text)
		}
	}

	rows := profileRows(t, input)
	if len(rows) < 3 {
		t.Fatalf("only %d profiles in the sample", len(rows))
	}
	for _, r := range rows {
		// What identifies a person, or says something only of them.
		values := []string{r["profile_id"], r["user_type"], r["primary_store_name"] + "」", firstLine(r["narrative"])}
		for what, text := range described {
			for _, v := range values {
				if v != "" && strings.Contains(text, v) {
					t.Errorf("%s holds %q of profile %s", what, v, r["profile_id"])
				}
			}
		}
		// The profile dataset's examples, together, are nobody.
		same := 0
		for _, c := range schema.Profiles.Columns {
			if c.Example == r[c.Name] {
				same++
			}
		}
		if same > 1 {
			t.Errorf("the profile examples share %d values with profile %s", same, r["profile_id"])
		}
	}
}

// profileRows reads every profile of the sample's narrative_data*.csv files.
func profileRows(t *testing.T, input string) []map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(input, "narrative_data*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no profile files in %s: %v", input, err)
	}
	var out []map[string]string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs[1:] {
			row := map[string]string{}
			for i, name := range recs[0] {
				row[strings.TrimPrefix(name, "\ufeff")] = rec[i]
			}
			out = append(out, row)
		}
	}
	return out
}

// firstLine is the first 20 characters of a text's first line: enough to be nobody else's.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	r := []rune(line)
	return string(r[:min(20, len(r))])
}
