package validation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/escape"
)

// annotation is the one shape of line --format github means to start with "::".
var annotation = regexp.MustCompile(`^::error file=[^:,]*,line=[0-9]+,title=ctool validate%3A [^:,]*::`)

// FuzzReport writes a report whose file names, columns and messages are attacker text, in every
// format, and checks that nothing it prints holds a raw control character (but the line breaks it
// writes itself), that the only lines GitHub would read as workflow commands are the annotations it
// meant, and that the JSON report is JSON saying exactly what the problems say.
func FuzzReport(f *testing.F) {
	for _, s := range []string{
		"x\n::warning title=forged::owned\n::add-mask::secret",
		"\r::error::cr",
		"  ::set-output name=x::y",
		"%0A::warning::encoded",
		"\x1b[2J\x1b]0;title\x07",
		"\u202etxt.exe\u2066",
		"\u0085::nel\u2028::ls\u2029::ps",
		"\xff\xfe\x00",
		"::",
		"",
	} {
		f.Add("in/narrative_data"+s+".csv", s, "found "+s, 3)
	}
	f.Fuzz(func(t *testing.T, file, column, message string, line int) {
		r := &Report{Max: 12}
		for i := 0; i < 13; i++ { // past the annotation limit, and past --max-errors
			r.add(Problem{File: file, Line: line + i, Column: column, Rule: RuleHeader, Message: message})
		}
		for _, format := range []string{FormatText, FormatGitHub, FormatJSON} {
			var out bytes.Buffer
			if err := r.Write(&out, format); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if !utf8.ValidString(text) {
				t.Fatalf("%s: output is not UTF-8: %q", format, text)
			}
			annotations := 0
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				for _, c := range l {
					if escape.Unsafe(c) {
						t.Fatalf("%s: raw %U in line %q", format, c, l)
					}
				}
				if strings.HasPrefix(strings.TrimLeft(l, " "), "::") {
					if format != FormatGitHub || !annotation.MatchString(l) {
						t.Fatalf("%s: a line it did not mean to write as a workflow command: %q", format, l)
					}
					annotations++
				}
			}
			if format == FormatGitHub && annotations != githubAnnotationLimit {
				t.Fatalf("%d annotations, want %d", annotations, githubAnnotationLimit)
			}
			if format == FormatJSON {
				var doc struct {
					ErrorCount int       `json:"error_count"`
					Shown      int       `json:"shown"`
					Truncated  bool      `json:"truncated"`
					Errors     []Problem `json:"errors"`
				}
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, text)
				}
				if doc.ErrorCount != 13 || doc.Shown != 12 || !doc.Truncated || len(doc.Errors) != 12 {
					t.Fatalf("count %d, shown %d, truncated %v, %d errors", doc.ErrorCount, doc.Shown, doc.Truncated, len(doc.Errors))
				}
				if utf8.ValidString(file) && utf8.ValidString(column) && utf8.ValidString(message) && !reflect.DeepEqual(doc.Errors[0], r.Problems[0]) {
					t.Fatalf("JSON says %+v, want %+v", doc.Errors[0], r.Problems[0])
				}
			}
		}
	})
}
