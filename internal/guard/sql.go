package guard

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/azabudai/ctool/schema"
)

// SQL is statement text that ctool wrote itself: compile-time constants, identifiers of the public
// relations and their columns, and integers, put together by the functions below. Nothing else can
// become SQL: Const takes only untyped constants (its parameter's type is unexported, so a string
// variable does not convert), and Ident refuses any name that schema/ does not define. Values an agent
// wrote reach a statement only as bound arguments, or as the text of the guard's checked statement.
type SQL struct{ text string }

// constText is the type of Const's and Format's constant text: only an untyped string constant
// converts to it outside this package.
type constText string

// runsText matches the table functions that parse and run a text argument: only the guard's checked
// statement (runSQL) may call them.
var runsText = regexp.MustCompile(`(?i)\bquery(_table)?"?\s*\(`)

// Const is constant SQL text. It panics when the text holds a ';' (ctool's statements are one each)
// or calls a function that runs SQL from a string, which only the guard's own statement does: a
// programming error, caught the first time the code runs.
func Const(text constText) SQL {
	s := string(text)
	if strings.Contains(s, ";") {
		panic("guard.Const: the text holds a ';': " + s)
	}
	if runsText.MatchString(s) {
		panic("guard.Const: the text runs SQL from a string: " + s)
	}
	return SQL{s}
}

// Format is Const's text with each %s replaced by an argument, in order; other verbs are not
// allowed. It panics when the count of %s and arguments differ.
func Format(format constText, args ...SQL) SQL {
	parts := strings.Split(string(format), "%s")
	if len(parts) != len(args)+1 {
		panic(fmt.Sprintf("guard.Format: %d arguments for %q", len(args), format))
	}
	var b strings.Builder
	b.WriteString(Const(constText(parts[0])).text)
	for i, a := range args {
		b.WriteString(a.text)
		b.WriteString(Const(constText(parts[i+1])).text)
	}
	return SQL{b.String()}
}

// Join is the parts with sep between them.
func Join(parts []SQL, sep constText) SQL {
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.text
	}
	return SQL{strings.Join(texts, Const(sep).text)}
}

// Int is n as an SQL number.
func Int(n int) SQL { return SQL{strconv.Itoa(n)} }

// Ident is name as a quoted identifier, for the name of a relation schema/ defines or of a column of
// one (schema.Relations, and the private datasets' tables), matched without regard to case; any other
// name is an error, so a name read from an agent's query can only ever be one ctool defines.
func Ident(name string) (SQL, error) {
	if !knownName(name) {
		return SQL{}, fmt.Errorf("guard: %q is no public relation or column", name)
	}
	return SQL{schema.QuoteIdent(name)}, nil
}

// MustIdent is Ident for names taken from schema/ itself; it panics on any other.
func MustIdent(name string) SQL {
	s, err := Ident(name)
	if err != nil {
		panic(err)
	}
	return s
}

// String is the text, for messages and tests.
func (s SQL) String() string { return s.text }

// knownName reports whether name, without regard to case, is a relation schema/ defines or a column
// of one.
func knownName(name string) bool { return schemaNames()[strings.ToLower(name)] }

var schemaNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, r := range schema.Relations() {
		names[strings.ToLower(r.Name)] = true
		for _, c := range r.Columns {
			names[strings.ToLower(c.Name)] = true
		}
	}
	for _, d := range schema.All() {
		names[strings.ToLower(d.Table)] = true
		for _, c := range d.Columns {
			names[strings.ToLower(c.Name)] = true
		}
	}
	return names
})
