package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azabudai/ctool/escape"
	"github.com/azabudai/ctool/schema"
	"github.com/xeipuuv/gojsonschema"
)

// cell checks one value against its column's rules.
func (v *validator) cell(path string, line int, c schema.Column, cell string) {
	add := func(rule, msg string) {
		v.report.add(Problem{File: path, Line: line, Column: c.Name, Rule: rule, Message: msg})
	}
	if (v.allUTF8 == nil || !v.allUTF8()) && !utf8.ValidString(cell) {
		add(RuleEncoding, "not valid UTF-8; save the file as UTF-8")
		return
	}
	if strings.IndexByte(cell, '\r') >= 0 {
		// CRLF inside a quoted field has already become LF; a carriage return left here stands alone,
		// and DuckDB's reader would take it for a line break.
		add(RuleFormat, "a carriage return alone inside a cell; use LF (or CRLF) line breaks inside a quoted field")
		return
	}
	if cell == "" {
		if c.Required {
			add(RuleRequired, "a value is required")
		}
		return
	}
	switch c.Kind {
	case schema.Integer:
		// The column is a 32-bit INTEGER in the database.
		if _, err := strconv.ParseInt(cell, 10, 32); err != nil {
			add(RuleType, fmt.Sprintf("expected an integer from -2147483648 to 2147483647, found %s", escape.Quote(cell)))
		}
	case schema.DateRange:
		if msg := checkDateRange(cell); msg != "" {
			add(RuleFormat, msg)
		}
	case schema.Timestamp:
		if !isTimestamp(cell) {
			add(RuleFormat, fmt.Sprintf("expected an ISO 8601 timestamp such as 2025-09-24T12:32:59.876957, found %s", escape.Quote(cell)))
		}
	case schema.Flag:
		if cell != c.FlagValue {
			add(RuleEnum, fmt.Sprintf("expected %q or an empty cell, found %s", c.FlagValue, escape.Quote(cell)))
		}
	case schema.Enum:
		if indexOf(c.Values, cell) < 0 {
			add(RuleEnum, fmt.Sprintf("expected one of %s, found %s", strings.Join(c.Values, ", "), escape.Quote(cell)))
		}
	case schema.JSON:
		rule := RuleSchema
		msgs := v.json(c.SchemaFile, cell)
		if len(msgs) == 1 && strings.HasPrefix(msgs[0], "not valid JSON") {
			rule = RuleJSON
		}
		for _, m := range msgs {
			add(rule, m)
		}
	}
}

func checkDateRange(s string) string {
	want := "expected YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD"
	start, end, isRange := strings.Cut(s, "/")
	from, err := parseDate(start)
	if err != nil {
		return fmt.Sprintf("%s, found %s", want, escape.Quote(s))
	}
	if !isRange {
		return ""
	}
	to, err := parseDate(end)
	if err != nil {
		return fmt.Sprintf("%s, found %s", want, escape.Quote(s))
	}
	if to.Before(from) {
		return fmt.Sprintf("the period %s ends before it starts", escape.Quote(s))
	}
	return ""
}

func parseDate(s string) (time.Time, error) {
	if len(s) != len("2006-01-02") {
		return time.Time{}, errors.New("bad length")
	}
	return time.Parse(time.DateOnly, s)
}

func isTimestamp(s string) bool {
	// Fractional seconds parse after the seconds even where a layout does not show them.
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// json checks a JSON cell against its schema and returns what is wrong with it.
func (v *validator) json(file, text string) []string {
	key := file + "\x00" + text
	if msgs, ok := v.seen[key]; ok {
		return msgs
	}
	msgs := v.checkJSON(file, text)
	v.seen[key] = msgs
	return msgs
}

func (v *validator) checkJSON(file, text string) []string {
	var value any
	if err := json.Unmarshal([]byte(text), &value); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return []string{fmt.Sprintf("not valid JSON: %s (at byte %d)", syntaxMessage(se, text), se.Offset)}
		}
		return []string{fmt.Sprintf("not valid JSON: %v", err)}
	}
	res, err := v.schemas[file].Validate(gojsonschema.NewStringLoader(text))
	if err != nil {
		return []string{fmt.Sprintf("not valid JSON: %v", err)}
	}
	var msgs []string
	for _, e := range res.Errors() {
		path := strings.Replace(e.Context().String(), "(root)", "$", 1)
		msgs = append(msgs, fmt.Sprintf("%s: %s (JSON Schema %s)", path, e.Description(), file))
	}
	return msgs
}

// syntaxMessage is encoding/json's message with the offending character shown whole: the decoder
// quotes only the first byte of a multi-byte character, which reads as a different letter.
func syntaxMessage(se *json.SyntaxError, text string) string {
	msg := se.Error()
	at := int(se.Offset) - 1
	if at < 0 || at >= len(text) || text[at] < utf8.RuneSelf {
		return msg
	}
	r, _ := utf8.DecodeRuneInString(text[at:])
	return strings.Replace(msg, fmt.Sprintf("'%c'", rune(text[at])), fmt.Sprintf("'%c'", r), 1)
}
