package main

import (
	"slices"
	"testing"
)

// The distances and suggestions are git's: help.c's weights (swap 0, substitution 2, addition 1,
// deletion 3), its prefix rule and its floor of 7.
func TestSimilar(t *testing.T) {
	commands := []string{"ingest", "validate", "status", "query", "profile", "schema", "tools", "mcp", "completion", "man", "help", "version"}
	for _, tc := range []struct {
		typed    string
		distance string // the candidate whose distance is checked
		want     int
		similar  []string
	}{
		{"querry", "query", 3, []string{"query"}},   // a letter too many
		{"qury", "query", 1, []string{"query"}},     // a letter missing
		{"stauts", "status", 0, []string{"status"}}, // two swapped
		{"q", "query", 4, []string{"query"}},        // a prefix of one command
		{"s", "schema", 5, []string{"schema", "status"}},
		{"m", "man", 2, []string{"man", "mcp"}},
		{"frobnicate", "profile", 15, nil},
		{"vesion", "version", 1, []string{"version"}},
		{"tool", "tools", 1, []string{"tools"}},
		{"ヘルプ", "help", 7, nil}, // counted in characters, not bytes
	} {
		if got := editDistance(tc.typed, tc.distance); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.typed, tc.distance, got, tc.want)
		}
		if got := similar(tc.typed, commands); !slices.Equal(got, tc.similar) {
			t.Errorf("similar(%q) = %q, want %q", tc.typed, got, tc.similar)
		}
	}
	// A prefix of every candidate is too ambiguous to suggest anything.
	if got := similar("s", []string{"schema", "status"}); got != nil {
		t.Errorf("similar(s) among its own extensions = %q, want none", got)
	}
}

func TestCorrectedLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		m    misspelt
		want string
	}{
		{[]string{"/usr/bin/ctool", "querry", "stores", "SELECT 'x'"}, misspelt{typo: "querry", fix: "query"}, `ctool query stores 'SELECT '\''x'\'''`},
		{[]string{"ctool", "query", "stores", "--format=jsn", "jsn"}, misspelt{typo: "jsn", fix: "json"}, "ctool query stores --format=json jsn"},
		{[]string{"ctool", "status", "--chek=true"}, misspelt{typo: "chek", fix: "check", flag: true}, "ctool status --check=true"},
		{[]string{"ctool", "query", "stores", "-formt", "json", "SELECT 1"}, misspelt{typo: "formt", fix: "format", flag: true}, "ctool query stores -format json 'SELECT 1'"},
	} {
		if got := correctedLine(tc.argv, &tc.m); got != tc.want {
			t.Errorf("correctedLine(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}
