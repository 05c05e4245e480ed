package validation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
)

// PlaceFile is the optional file beside the CSV files that names the complex the data describes:
// {"name": "麻布台ヒルズ", "name_en": "Azabudai Hills"}. The build records it and the descriptions an
// agent reads name it; without the file nothing names a place.
const PlaceFile = "place.json"

// RulePlace is the rule word of a place file that cannot be read as one.
const RulePlace = "place"

const (
	// maxPlaceBytes bounds the place file: two names need a few hundred bytes.
	maxPlaceBytes = 4096
	// maxPlaceName bounds a name in characters: every tool description carries it.
	maxPlaceName = 100
)

// readPlace reads and checks dir's place file. A missing file is the zero Place and no problem; a file
// that is not exactly an object of "name" and, optionally, "name_en", each a non-empty line of text, is
// problems located by line and key. The error is for failures that are not the file's fault.
func readPlace(dir string) (schema.Place, []Problem, error) {
	path := filepath.Join(dir, PlaceFile)
	f, info, err := OpenInput(path, 0)
	var ee *EntryError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return schema.Place{}, nil, nil
	case errors.As(err, &ee):
		return schema.Place{}, []Problem{entryProblem(ee)}, nil
	case err != nil:
		return schema.Place{}, nil, err
	}
	defer f.Close()
	if info.Size() > maxPlaceBytes {
		return schema.Place{}, []Problem{{File: path, Rule: RulePlace,
			Message: fmt.Sprintf("is %d bytes, over the limit of %d for a place file", info.Size(), maxPlaceBytes)}}, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPlaceBytes+1))
	if err != nil {
		return schema.Place{}, nil, err
	}
	if len(data) > maxPlaceBytes { // it grew since the stat
		return schema.Place{}, []Problem{{File: path, Rule: RulePlace,
			Message: fmt.Sprintf("is over the limit of %d bytes for a place file", maxPlaceBytes)}}, nil
	}
	p, problems := parsePlace(path, data)
	return p, problems, nil
}

// placeKeys are the keys a place file may hold, with whether each is required.
var placeKeys = map[string]bool{"name": true, "name_en": false}

// parsePlace reads a place file's bytes; path is what its problems name.
func parsePlace(path string, data []byte) (schema.Place, []Problem) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := string(data)
	at := func(offset int64, key, format string, args ...any) Problem {
		line := 1 + strings.Count(text[:min(int(offset), len(text))], "\n")
		return Problem{File: path, Line: line, Column: key, Rule: RulePlace, Message: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(data) {
		return schema.Place{}, []Problem{{File: path, Rule: RuleEncoding, Message: "the file is not UTF-8"}}
	}
	want := `want {"name": "…", "name_en": "…"}`
	dec := json.NewDecoder(bytes.NewReader(data))
	syntax := func(err error) []Problem {
		// The full parse says where, as notJSON's message does.
		var se *json.SyntaxError
		var v any
		offset := int64(0)
		if errors.As(json.Unmarshal(data, &v), &se) {
			offset = se.Offset
		}
		return []Problem{at(offset, "", "%s", notJSON(text, err).msg)}
	}
	if strings.TrimSpace(text) == "" {
		return schema.Place{}, []Problem{{File: path, Rule: RulePlace, Message: "the file is empty; " + want}}
	}
	tok, err := dec.Token()
	if err != nil {
		return schema.Place{}, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return schema.Place{}, []Problem{at(0, "", "not a JSON object; %s", want)}
	}
	var problems []Problem
	values, seen := map[string]string{}, map[string]bool{}
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return schema.Place{}, syntax(err)
		}
		key := tok.(string) // an object's key is a string, or Token fails
		keyAt := start + int64(bytes.IndexByte(data[start:], '"'))
		tok, err = dec.Token()
		if err != nil {
			return schema.Place{}, syntax(err)
		}
		value, isString := tok.(string)
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			// Only strings are read: an object or array ends the reading, with this problem.
			return schema.Place{}, append(problems, at(keyAt, key, "%s is not a string; %s", escape.Quote(key), want))
		}
		_, known := placeKeys[key]
		twice := seen[key]
		seen[key] = true
		switch {
		case !known:
			problems = append(problems, at(keyAt, key, "unknown key %s; a place file holds \"name\" and \"name_en\"", escape.Quote(key)))
		case twice:
			problems = append(problems, at(keyAt, key, "duplicate key %s; keep one", escape.Quote(key)))
		case !isString:
			problems = append(problems, at(keyAt, key, "%s is not a string; %s", escape.Quote(key), want))
		default:
			values[key] = value
			if msg := badPlaceName(value); msg != "" {
				problems = append(problems, at(keyAt, key, "%s %s", escape.Quote(key), msg))
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return schema.Place{}, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return schema.Place{}, []Problem{at(dec.InputOffset(), "", "more after the object; %s", want)}
	}
	for _, key := range []string{"name", "name_en"} {
		if !seen[key] && placeKeys[key] {
			problems = append(problems, Problem{File: path, Column: key, Rule: RulePlace,
				Message: fmt.Sprintf("no %s; %s, or remove %s for a build that names no place", escape.Quote(key), want, PlaceFile)})
		}
	}
	if len(problems) > 0 {
		return schema.Place{}, problems
	}
	return schema.Place{Name: values["name"], NameEn: values["name_en"]}, nil
}

// badPlaceName says what is wrong with a name, "" for nothing: it goes into every description, on one
// line, as written.
func badPlaceName(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is empty; name the place, or remove " + PlaceFile + " for a build that names none"
	case strings.TrimSpace(s) != s:
		return "starts or ends with white space"
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		return "holds a control or format character; write the name on one line as it reads"
	case utf8.RuneCountInString(s) > maxPlaceName:
		return fmt.Sprintf("is %d characters, over the limit of %d", utf8.RuneCountInString(s), maxPlaceName)
	}
	return ""
}
