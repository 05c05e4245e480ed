package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/schema"
	"github.com/xeipuuv/gojsonschema"
)

// argument reads a tool's one string argument (sql_query or profile_id) and checks it against the
// tool's input schema. The SDK passes a raw handler the arguments unchecked, and a client may not have
// checked them either.
type argument struct {
	tool    string
	name    string
	private bool
	schema  *gojsonschema.Schema
	// minChars and maxChars are the schema's minLength and maxLength of the argument: a call whose
	// arguments are that one string, within them, is valid without asking the schema (about a tenth of
	// the server's CPU per call).
	minChars, maxChars int
}

func newArgument(t schema.Tool, d *schema.Dataset) (*argument, error) {
	var s struct {
		Properties map[string]struct {
			Type      string `json:"type"`
			MinLength *int   `json:"minLength"`
			MaxLength *int   `json:"maxLength"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(t.InputSchema, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) != 1 {
		return nil, fmt.Errorf("the input schema has %d properties, not one", len(s.Properties))
	}
	a := &argument{tool: t.Name, private: d.Private}
	for name, p := range s.Properties {
		a.name = name
		if p.Type != "string" || p.MinLength == nil || p.MaxLength == nil {
			return nil, fmt.Errorf("the input schema's %s is not a string of bounded length", name)
		}
		a.minChars, a.maxChars = *p.MinLength, *p.MaxLength
	}
	var err error
	a.schema, err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(t.InputSchema))
	return a, err
}

// value returns the argument. A missing or empty one comes back as "", so the command's own message
// answers it (the guard's "empty query", "profile_idを指定してください"); a list of profile ids gets
// `ctool profile`'s one-id message; anything else the schema refuses is a usage error.
func (a *argument) value(raw json.RawMessage) (string, error) { return a.read(raw, true) }

// read is value; without plain, every call asks the schema (FuzzArgument holds the two alike).
func (a *argument) read(raw json.RawMessage, plain bool) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "", a.usage("the arguments must be a JSON object")
	}
	v, given := fields[a.name]
	if a.private && given {
		if err := profile.CheckJSONID(v); err != nil {
			return "", err
		}
	}
	if plain {
		if s, ok := a.plainString(fields, v); ok {
			return s, nil
		}
	}
	return a.validated(raw, v, given)
}

// plainString returns the argument when the arguments are that one string and its length is within
// the schema's bounds: what the schema accepts without complaint, decided without it.
func (a *argument) plainString(fields map[string]json.RawMessage, v json.RawMessage) (string, bool) {
	if len(fields) != 1 || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	n := utf8.RuneCountInString(s)
	return s, n >= a.minChars && n <= a.maxChars
}

// validated is value for any arguments: the schema decides, and its errors become the message.
func (a *argument) validated(raw, v json.RawMessage, given bool) (string, error) {
	res, err := a.schema.Validate(gojsonschema.NewBytesLoader(raw))
	if err != nil {
		return "", a.usage("the arguments are not valid JSON")
	}
	if !res.Valid() {
		var problems []string
		onlyMissing := true
		for _, e := range res.Errors() {
			problems = append(problems, e.String())
			if t := e.Type(); t != "required" && t != "string_gte" {
				onlyMissing = false
			}
		}
		if !onlyMissing {
			return "", a.usage(strings.Join(problems, "; "))
		}
		return "", nil
	}
	if !given {
		return "", nil // optional: get_user_profile with auth on
	}
	var s string
	err = json.Unmarshal(v, &s)
	return s, err
}

func (a *argument) usage(problem string) error {
	return &fault.Error{Kind: fault.KindUsage, Message: fmt.Sprintf("%s: %s", a.tool, problem),
		Hint: fmt.Sprintf(`pass exactly {"%s": "..."}, a string`, a.name)}
}
