package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
)

// The README's quick start for an agent runs as written against the sample build, and each of its
// queries finds rows, whatever the hour: a query that asks for stores open now would find none at night.
func TestREADMEQuickStart(t *testing.T) {
	const readme = "../../README.md"
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## Quick start: an agent")
	if !ok {
		t.Fatal("README.md has no quick start for an agent")
	}
	var block string
	for _, cb := range codeBlocks(t, readme) {
		if cb.lang == "sh" && strings.Contains(section, cb.text) {
			block = cb.text
			break
		}
	}
	db := ingesttest.Build(t, ingesttest.SampleInput(t))
	work := t.TempDir()
	n := 0
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if !ctoolLine.MatchString(line) {
			continue
		}
		n++
		out, code := bashLine(t, work, line, "CTOOL_DB="+db)
		if code != 0 {
			t.Errorf("%s\nexit %d:\n%s", line, code, out)
			continue
		}
		if strings.HasPrefix(line, "ctool query") {
			var doc struct{ Count int }
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Count == 0 {
				t.Errorf("%s found no rows (%v):\n%s", line, err, out)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d ctool lines in the quick start, want the manifest, a query, the schema and a profile", n)
	}
	if _, err := os.Stat(filepath.Join(work, "tools.json")); err != nil {
		t.Errorf("the manifest was not written: %v", err)
	}
}
