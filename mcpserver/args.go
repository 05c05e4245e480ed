package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/profile"
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
}

func newArgument(t schema.Tool, d *schema.Dataset) (*argument, error) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(t.InputSchema, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) != 1 {
		return nil, fmt.Errorf("the input schema has %d properties, not one", len(s.Properties))
	}
	a := &argument{tool: t.Name, private: d.Private}
	for name := range s.Properties {
		a.name = name
	}
	var err error
	a.schema, err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(t.InputSchema))
	return a, err
}

// value returns the argument. A missing or empty one comes back as "", so the command's own message
// answers it (the guard's "empty query", "profile_idを指定してください"); a list of profile ids gets
// `ctool profile`'s one-id message; anything else the schema refuses is a usage error.
func (a *argument) value(raw json.RawMessage) (string, error) {
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
	return &ctool.Error{Kind: ctool.KindUsage, Message: fmt.Sprintf("%s: %s", a.tool, problem),
		Hint: fmt.Sprintf(`pass exactly {"%s": "..."}, a string`, a.name)}
}
