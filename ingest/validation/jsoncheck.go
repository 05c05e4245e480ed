package validation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
)

// A JSON cell is read twice: by validation (encoding/json and the JSON Schema) and, after the load, by
// DuckDB (its JSON reader, when the stored typed relations are filled). Where the two readers could
// disagree, validation refuses the text, so that a cell that passes means one thing to both:
//
//   - a key twice in one object: encoding/json keeps the last value, DuckDB the first, so
//     {"available": false, "available": true} would be checked as true and built as false;
//   - an escaped UTF-16 surrogate without its pair ("\ud800"): encoding/json reads U+FFFD, DuckDB
//     refuses the whole text;
//   - a number DuckDB cannot read as written: beyond a double's range (1e400), so small it reads as
//     0 (1e-400), or longer than maxJSONNumber characters, which no column holds and which would cost
//     the JSON Schema's exact arithmetic seconds a number.
//
// Numbers within those bounds that a column stores as an integer are bounded by its JSON Schema
// (minimum, maximum), which says the range of the type the typed relations cast them to.

// maxJSONNumber is the longest number literal a JSON cell may hold, in bytes: a double needs 24.
const maxJSONNumber = 64

// maxCellProblems is the most problems one JSON cell reports: a hostile cell could hold millions, each
// costing its path's length to describe.
const maxCellProblems = 10

// maxJSONDepth is the deepest nesting of arrays and objects, encoding/json's own limit.
const maxJSONDepth = 10000

// jsonProblem is one thing wrong with a JSON cell, with its rule word.
type jsonProblem struct {
	rule, msg string
}

// jsonFrame is an array or object the token pass is inside, as it builds it.
type jsonFrame struct {
	object  bool
	obj     map[string]any
	arr     []any
	key     string // objects: the key of the value being read, once haveKey
	haveKey bool
	keys    []jsonKey // objects: each key read and where it starts, for a duplicate's message
}

type jsonKey struct {
	name string
	at   int
}

// firstAt is where the object's first key named name starts.
func (f *jsonFrame) firstAt(name string) int {
	for _, k := range f.keys {
		if k.name == name {
			return k.at
		}
	}
	return -1
}

// scanJSON reads text with encoding/json's tokenizer and returns the document, as json.Decoder with
// UseNumber would decode it, and what makes the text unsafe to build: a duplicate key, a lone surrogate,
// a number out of range. A text that is not JSON at all is one json problem with encoding/json's own
// message; the other problems are reported, up to maxCellProblems, each with the JSON path of the value
// (for a key, of its object) and the byte, counted from 1, where the token starts. The document is only
// for a text with no problem.
func scanJSON(text string) (any, []jsonProblem) {
	var problems []jsonProblem
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var (
		stack []jsonFrame
		doc   any
		prev  int  // the end of the previous token
		done  bool // the top-level value was read
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF && done {
			return doc, problems
		}
		if err != nil || done {
			// Not JSON, or more after the value: encoding/json's full parse says where and why.
			return nil, []jsonProblem{notJSON(text, err)}
		}
		end := int(dec.InputOffset())
		// The token's own bytes: what lies between tokens is white space, commas and colons.
		raw := strings.TrimLeft(text[prev:end], " \t\r\n,:")
		at := end - len(raw)
		prev = end
		var top *jsonFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		var value any
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) == maxJSONDepth {
					return nil, []jsonProblem{notJSON(text, errors.New("exceeded max depth"))}
				}
				f := jsonFrame{object: t == '{'}
				if f.object {
					f.obj = map[string]any{}
				} else {
					f.arr = []any{}
				}
				stack = append(stack, f)
				continue
			case '}':
				value = top.obj
			case ']':
				value = top.arr
			}
			stack = stack[:len(stack)-1]
		case string:
			isKey := top != nil && top.object && !top.haveKey
			if msg := loneSurrogate(raw); msg != "" && len(problems) < maxCellProblems {
				problems = append(problems, jsonProblem{RuleJSON, fmt.Sprintf("%s: %s (at byte %d); write the character as UTF-8 or as a surrogate pair", jsonPath(stack, isKey), msg, at+1)})
			}
			if isKey {
				if _, dup := top.obj[t]; dup && len(problems) < maxCellProblems {
					problems = append(problems, jsonProblem{RuleDuplicateKey,
						fmt.Sprintf("%s: duplicate key %s (at byte %d, first at byte %d); keep one", jsonPath(stack, true), escape.Quote(t), at+1, top.firstAt(t)+1)})
				}
				top.obj[t] = nil // until its value comes: a duplicate is one whatever the values
				top.key, top.haveKey = t, true
				top.keys = append(top.keys, jsonKey{t, at})
				continue
			}
			value = t
		default: // json.Number, bool, nil
			if n, ok := t.(json.Number); ok {
				if msg := badNumber(string(n)); msg != "" && len(problems) < maxCellProblems {
					problems = append(problems, jsonProblem{RuleJSON, fmt.Sprintf("%s: %s (at byte %d)", jsonPath(stack, false), msg, at+1)})
				}
			}
			value = t
		}
		// A value ended, a scalar or an array or object just closed: it goes into its container.
		if len(stack) == 0 {
			doc, done = value, true
		} else if f := &stack[len(stack)-1]; f.object {
			f.obj[f.key] = value
			f.haveKey = false
		} else {
			f.arr = append(f.arr, value)
		}
	}
}

// notJSON is the problem for a text encoding/json cannot read: its full parse's message, which names the
// offending character and byte, and for a text the tokenizer alone refused (a nesting too deep) its error.
func notJSON(text string, tokenErr error) jsonProblem {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	if err == nil {
		err = tokenErr
	}
	if err == nil {
		err = errors.New("more than one value")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return jsonProblem{RuleJSON, fmt.Sprintf("not valid JSON: %s (at byte %d)", syntaxMessage(se, text), se.Offset)}
	}
	return jsonProblem{RuleJSON, fmt.Sprintf("not valid JSON: %v", err)}
}

// jsonPath names where the token pass is, as the JSON Schema messages do ($.monday.0.close): the value
// being read, or with inObject the object whose key is being read.
func jsonPath(stack []jsonFrame, inObject bool) string {
	var b strings.Builder
	b.WriteString("$")
	for i, f := range stack {
		if inObject && i == len(stack)-1 {
			break
		}
		b.WriteByte('.')
		if f.object {
			b.WriteString(f.key)
		} else {
			b.WriteString(strconv.Itoa(len(f.arr)))
		}
	}
	return b.String()
}

// loneSurrogate finds an escaped UTF-16 surrogate without its pair (a high one not followed by a low
// one, or a low one alone) in raw, a string token as written, quotes and escapes included, already
// checked by the tokenizer; "" when there is none.
func loneSurrogate(raw string) string {
	if !strings.Contains(raw, `\u`) {
		return ""
	}
	for i := 0; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // \" \\ \n …: the escaped character is not the start of another escape
			continue
		}
		r := hex4(raw, i+2)
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if low := hex4(raw, i+8); low >= 0xdc00 && low < 0xe000 {
					i += 11
					continue
				}
			}
			return "lone surrogate " + raw[i:i+6]
		case r >= 0xdc00 && r < 0xe000:
			return "lone surrogate " + raw[i:i+6]
		}
		i += 5
	}
	return ""
}

// hex4 reads the four hex digits at raw[i:], or returns -1.
func hex4(raw string, i int) int {
	if i+4 > len(raw) {
		return -1
	}
	n, err := strconv.ParseUint(raw[i:i+4], 16, 16)
	if err != nil {
		return -1
	}
	return int(n)
}

// badNumber says why DuckDB cannot read a number literal as written; "" when it can.
func badNumber(s string) string {
	if len(s) > maxJSONNumber {
		return fmt.Sprintf("the number %s is longer than %d characters", escape.Quote(s), maxJSONNumber)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return fmt.Sprintf("the number %s is beyond the range of a double", escape.Quote(s))
	}
	if f == 0 && strings.ContainsAny(mantissa(s), "123456789") {
		return fmt.Sprintf("the number %s is too small for a double and would read as 0", escape.Quote(s))
	}
	return ""
}

// mantissa is a number literal without its exponent.
func mantissa(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}
