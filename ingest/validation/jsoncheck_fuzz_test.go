package validation

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJSONCell reads attacker text as a JSON cell's token pass does (scanJSON) and checks that it never
// panics, that it calls a text JSON exactly when encoding/json does, that every problem names a byte
// where its token starts, and, on a text it passes, that a key written again in front of its top-level
// object is a duplicate_key problem and a lone surrogate beside it a json one, while a surrogate pair is
// not.
func FuzzJSONCell(f *testing.F) {
	for _, s := range []string{
		`{"available": false, "available": true}`,
		`{"monday": [{"open": "10:00", "close": "20:00", "open": "11:00"}]}`,
		`{"a": {"b": 1, "b": 2}, "a": 3}`,
		`{"highchair": true, "\u0068ighchair": false}`,
		`{"": 1, "": 2}`,
		`["\ud800"]`, `["\udc00\ud800"]`, `["\ud83d\ude00"]`, `["\\ud800"]`, `["\"\ud800"]`, `{"\ud800": 1}`,
		`{"capacity": 99999999999999999999}`, `[1e400, -1e-400, 0e999, -0, 2.0e1]`,
		`["家族",]`, `{} {}`, ` `, `[[[[]]]]`, `"\u0000"`, `nul`, `{"a" 1}`, `[1 2]`, `{"a":1,}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return // a cell that is not UTF-8 never reaches the JSON check
		}
		doc, problems := scanJSON(text)
		syntax := len(problems) == 1 && strings.HasPrefix(problems[0].msg, "not valid JSON: ")
		if valid := json.Valid([]byte(text)); syntax == valid {
			t.Fatalf("json.Valid says %v, the token pass %v", valid, problems)
		}
		if syntax {
			return
		}
		for _, p := range problems {
			at := byteOf(t, p.msg)
			if at < 1 || at > len(text) || !strings.ContainsRune(`"-0123456789`, rune(text[at-1])) {
				t.Fatalf("%s: byte %d is not where a string or number starts in %q", p.msg, at, text)
			}
		}
		if len(problems) > 0 {
			return
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil || !reflect.DeepEqual(doc, want) {
			t.Fatalf("the token pass built %#v, json.Decoder decodes %#v (%v)", doc, want, err)
		}
		var top map[string]any
		if json.Unmarshal([]byte(text), &top) == nil {
			for key := range top {
				name, _ := json.Marshal(key)
				again := "{" + string(name) + ": null, " + strings.Trim(text, " \t\r\n")[1:]
				if !hasRule(second(scanJSON(again)), RuleDuplicateKey) {
					t.Fatalf("%q: no duplicate_key problem for %q written again", again, key)
				}
				break
			}
		}
		if _, got := scanJSON(`["\ud800", ` + text + `]`); len(got) != 1 || got[0].rule != RuleJSON || !strings.Contains(got[0].msg, "lone surrogate") {
			t.Fatalf("a lone surrogate beside %q: %v", text, got)
		}
		if _, got := scanJSON(`["\ud83d\ude00", ` + text + `]`); len(got) != 0 {
			t.Fatalf("a surrogate pair beside %q: %v", text, got)
		}
	})
}

// byteOf is the N of a problem's "(at byte N".
func byteOf(t *testing.T, msg string) int {
	t.Helper()
	_, rest, ok := strings.Cut(msg, "(at byte ")
	if !ok {
		t.Fatalf("no byte in %q", msg)
	}
	end := strings.IndexAny(rest, ",)")
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		t.Fatalf("no byte in %q", msg)
	}
	return n
}

func second(_ any, problems []jsonProblem) []jsonProblem { return problems }

func hasRule(problems []jsonProblem, rule string) bool {
	for _, p := range problems {
		if p.rule == rule {
			return true
		}
	}
	return false
}
