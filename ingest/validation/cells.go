package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/hours"
	"github.com/azabudai/ctool/schema/injection"
	"github.com/xeipuuv/gojsonschema"
)

// cell checks one value against its column's rules and returns the rule of a value that cannot be
// typed, "" otherwise. Such a value is a warning (an error with --strict): the build keeps the cell as
// written and its typed value unknown (NULL), so one bad cell costs that cell, not the build. What makes
// the file itself unreadable (an encoding, a stray carriage return, an empty required cell, a key twice
// in one JSON object) stays an error.
func (v *validator) cell(path string, line int, c schema.Column, cell string) (unknown string) {
	add := func(rule, msg string) {
		v.addRow(Problem{File: path, Line: line, Column: c.Name, Rule: rule, Message: msg})
	}
	untyped := func(rule, msg string) {
		if !v.strict {
			msg += "; " + unknownNote
		}
		v.addRow(Problem{File: path, Line: line, Column: c.Name, Rule: rule, Message: msg, Severity: v.severity()})
		if unknown == "" {
			unknown = rule
		}
	}
	if (v.allUTF8 == nil || !v.allUTF8()) && !utf8.ValidString(cell) {
		add(RuleEncoding, "not valid UTF-8; save the file as UTF-8")
		return ""
	}
	if strings.IndexByte(cell, '\r') >= 0 {
		// CRLF inside a quoted field has already become LF; a carriage return left here stands alone,
		// and DuckDB's reader would take it for a line break.
		add(RuleFormat, "a carriage return alone inside a cell; use LF (or CRLF) line breaks inside a quoted field")
		return ""
	}
	if cell == "" {
		if c.Required {
			add(RuleRequired, "a value is required")
		}
		return ""
	}
	if v.public {
		v.injection(path, line, c, cell)
	}
	switch c.Kind {
	case schema.Integer:
		// The column is a 32-bit INTEGER in the database.
		if _, err := strconv.ParseInt(cell, 10, 32); err != nil {
			untyped(RuleType, fmt.Sprintf("expected an integer from -2147483648 to 2147483647, found %s", escape.Quote(cell)))
		}
	case schema.DateRange:
		if msg := checkDateRange(cell); msg != "" {
			untyped(RuleFormat, msg)
		}
	case schema.Timestamp:
		if !isTimestamp(cell) {
			untyped(RuleFormat, fmt.Sprintf("expected an ISO 8601 timestamp such as 2025-09-24T12:32:59.876957, found %s", escape.Quote(cell)))
		}
	case schema.Flag:
		if cell != c.FlagValue {
			untyped(RuleEnum, fmt.Sprintf("expected %q or an empty cell, found %s", c.FlagValue, escape.Quote(cell)))
		}
	case schema.Enum:
		if indexOf(c.Values, cell) < 0 {
			untyped(RuleEnum, fmt.Sprintf("expected one of %s, found %s", strings.Join(c.Values, ", "), escape.Quote(cell)))
		}
	case schema.JSON:
		if c.SchemaFile == schema.HoursSchemaFile && !looksLikeJSON(cell) {
			// Hours written as text are read by the hours rule into the same typed hours.
			if _, ok := hours.Read(cell); !ok {
				untyped(RuleHours, fmt.Sprintf("opening hours the hours rule cannot read: %s", escape.Quote(cell)))
			}
			return unknown
		}
		for _, p := range v.json(c.SchemaFile, cell) {
			if p.rule == RuleDuplicateKey {
				add(p.rule, p.msg)
			} else {
				untyped(p.rule, p.msg)
			}
		}
	}
	return unknown
}

// injection reports a cell whose text addresses an AI agent. Every kind of cell is read, not only
// text: a cell that cannot be typed is kept as written, and the agent reads the raw tables too.
// Profiles are not read: they are the operator's records, not pages from the web, the agent sees one
// only as the visitor's own, and a report quoting a narrative would put personal data in CI logs.
func (v *validator) injection(path string, line int, c schema.Column, cell string) {
	short := len(cell) <= maxPlainBytes
	if _, seen := v.plain[cell]; short && seen {
		return
	}
	in, ok := injection.AddressesAI(cell)
	if !ok {
		if short && len(v.plain) < maxPlainCells {
			v.plain[strings.Clone(cell)] = struct{}{} // not a slice of the record, which it would keep
		}
		return
	}
	msg := fmt.Sprintf("text addressed to an AI agent (%s): %s", in.Kind, escape.Quote(in.Phrase))
	if !v.strict {
		msg += "; kept as written, and an answer that returns it tells the agent it is data, not instructions"
	}
	v.addRow(Problem{File: path, Line: line, Column: c.Name, Rule: RuleInjection, Message: msg, Severity: v.severity()})
}

// The short cells known not to address an AI are at most maxPlainCells of maxPlainBytes each: names,
// ids and tags, not descriptions, which rarely repeat.
const maxPlainCells, maxPlainBytes = 1 << 16, 64

// unknownNote ends the message of a cell that cannot be typed, when that is a warning.
const unknownNote = "kept as written, its typed value unknown"

// severity is what a value that cannot be typed is: a warning, or an error with --strict.
func (v *validator) severity() string {
	if v.strict {
		return ""
	}
	return SeverityWarning
}

// looksLikeJSON reports whether a cell is written as JSON (an object or an array) rather than as text.
func looksLikeJSON(cell string) bool {
	t := strings.TrimLeft(cell, " \t\n")
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
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
func (v *validator) json(file, text string) []jsonProblem {
	key := file + "\x00" + text
	if problems, ok := v.seen[key]; ok {
		return problems
	}
	problems := v.checkJSON(file, text)
	v.seen[key] = problems
	return problems
}

// checkJSON reads the text token by token first (jsoncheck.go): only a text both readers take the same
// way goes on to its JSON Schema.
func (v *validator) checkJSON(file, text string) []jsonProblem {
	doc, problems := scanJSON(text)
	if len(problems) > 0 {
		return problems
	}
	// The schema checks the document the token pass built, decoded as gojsonschema decodes (numbers
	// as json.Number), rather than reading the text a second time.
	res, err := v.schemas[file].Validate(gojsonschema.NewRawLoader(doc))
	if err != nil {
		return []jsonProblem{{RuleJSON, fmt.Sprintf("not valid JSON: %v", err)}}
	}
	for _, e := range res.Errors() {
		path := strings.Replace(e.Context().String(), "(root)", "$", 1)
		problems = append(problems, jsonProblem{RuleSchema, fmt.Sprintf("%s: %s (JSON Schema %s)", path, exactNumbers(e), file)})
	}
	return problems
}

// exactNumbers is a JSON Schema message with its bounds written out: gojsonschema prints a maximum of
// 2147483647 as 2.147483647e+09.
func exactNumbers(e gojsonschema.ResultError) string {
	msg := e.Description()
	for _, d := range e.Details() {
		if f, ok := d.(*big.Float); ok {
			msg = strings.ReplaceAll(msg, fmt.Sprint(f), f.Text('f', -1))
		}
	}
	return msg
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
