package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Tool is one entry of the function-calling manifest: enough for an agent framework to register a
// ctool command as a tool without copying its description by hand.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Command is the shell form; Argv is the same command as an argument vector, where the placeholder
	// is replaced by the argument as one element (no shell quoting needed).
	Command string   `json:"command"`
	Argv    []string `json:"argv"`
}

// Manifest lists the four agent tools: one SQL tool per public dataset and get_user_profile.
func Manifest() []Tool { return ManifestWith(nil, "", ForCommands) }

// Reader says how the agent that reads a manifest reaches a tool's full description.
type Reader int

const (
	// ForCommands: an agent that runs commands (a bash tool, function calling): `ctool schema`.
	ForCommands Reader = iota
	// ForMCP: an MCP client, which reads the resource ctool://schema/<dataset>.
	ForMCP
)

// ManifestWith is Manifest with the label values of a built database (see DescribeWith). When db is
// set, the commands name it with --db, so they run the same from any directory. Each description
// points to the full one where its reader can reach it.
func ManifestWith(v Vocabulary, db string, r Reader) []Tool {
	var tools []Tool
	for _, d := range append(Public(), Profiles) {
		full := SchemaCommand(d, db)
		if r == ForMCP {
			full = ResourceURI(d)
		}
		t := Tool{Name: d.Tool, Description: Brief(d, v, full)}
		if d.Private {
			t.InputSchema = inputSchema("profile_id", "対話中のユーザーのプロファイルID（例: user_example）", 1, 200)
			t.Argv = []string{"ctool", "profile", "--format", "json"}
		} else {
			t.InputSchema = inputSchema("sql_query", fmt.Sprintf("実行するSQLクエリ（SELECT文1つのみ。結果は最大%d件）", RowCap), 1, MaxQueryChars)
			t.Argv = []string{"ctool", "query", d.Name, "--format", "json"}
		}
		if db != "" {
			t.Argv = append(t.Argv, "--db", db)
		}
		// "--" ends the flags, so SQL that starts with a "-- comment" line is never read as one.
		t.Argv = append(t.Argv, "--", "{"+param(d)+"}")
		t.Command = shellCommand(t.Argv)
		tools = append(tools, t)
	}
	return tools
}

func inputSchema(param, description string, minLength, maxLength int) json.RawMessage {
	s := map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type":    "object",
		"properties": map[string]any{
			param: map[string]any{"type": "string", "description": description, "minLength": minLength, "maxLength": maxLength},
		},
		"required":             []string{param},
		"additionalProperties": false,
	}
	b, _ := json.Marshal(s)
	return b
}

// param is the one argument of a dataset's tool.
func param(d *Dataset) string {
	if d.Private {
		return "profile_id"
	}
	return "sql_query"
}

// shellCommand is argv as a shell line: words that need it single-quoted, the placeholder as is.
func shellCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./{}=:,+@%", r))
		}) {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}
