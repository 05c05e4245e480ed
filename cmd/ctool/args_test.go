package main

import (
	"io"
	"strings"
	"testing"
)

func TestArrange(t *testing.T) {
	app := newApp(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	tests := []struct {
		args   string // split on |
		want   string
		format string
	}{
		{"ctool|query|stores|SELECT 1|--format|json", "ctool|query|stores|--format|json|--|SELECT 1", "json"},
		{"ctool|query|--format|json|stores|SELECT 1", "ctool|query|stores|--format|json|--|SELECT 1", "json"},
		{"ctool|query|stores|--format=jsonl|SELECT 1", "ctool|query|stores|--format=jsonl|--|SELECT 1", "jsonl"},
		{"ctool|query|stores|SELECT 1", "ctool|query|stores|--|SELECT 1", "text"},
		// A comment line is SQL: its dashes are followed by a space or a line break.
		{"ctool|query|stores|-- cafes\nSELECT 1|--db|x.duckdb", "ctool|query|stores|--db|x.duckdb|--|-- cafes\nSELECT 1", "text"},
		{"ctool|query|stores|--\nSELECT 1", "ctool|query|stores|--|--\nSELECT 1", "text"},
		// After -- nothing is a flag.
		{"ctool|query|stores|--|--format|json", "ctool|query|stores|--|--format|json", "text"},
		// A value flag takes the next word even if it looks like an argument or a command.
		{"ctool|query|stores|--db|stores|SELECT 1", "ctool|query|stores|--db|stores|--|SELECT 1", "text"},
		// "-" (stdin) is an argument; unknown flags stay flags, for the library to refuse.
		{"ctool|query|events|-|--bogus", "ctool|query|events|--bogus|--|-", "text"},
		{"ctool|profile|user_x|--format|table", "ctool|profile|--format|table|--|user_x", "table"},
		{"ctool|profile|user_x", "ctool|profile|--|user_x", "json"},
		{"ctool|schema|events|--format|json", "ctool|schema|--format|json|--|events", "json"},
		{"ctool|status|--check|--format|json", "ctool|status|--check|--format|json", "json"},
		{"ctool|--version", "ctool|--version", ""},
		{"ctool|frob", "ctool|--|frob", ""},
		// help's arguments are command names, passed on as arguments.
		{"ctool|help|query|stores", "ctool|help|--|query|stores", ""},
	}
	for _, tt := range tests {
		got := arrange(app, strings.Split(tt.args, "|"))
		if g := strings.Join(got.args, "|"); g != tt.want || got.format != tt.format {
			t.Errorf("arrange(%q)\n got %q format %q\nwant %q format %q", tt.args, g, got.format, tt.want, tt.format)
		}
	}
}
