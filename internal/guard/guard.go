// Package guard owns what runs on a build. It decides whether an agent's text is one read-only SELECT
// that reads only what a dataset's policy allows, and gives the one statement that runs it with the
// row cap (Checked). Every decision is made on the AST that DuckDB's own parser produces
// (json_serialize_sql), never on the text; the text is parsed once and its AST walked once, and
// whatever the walk does not recognise is refused. Query shapes (shape.go) let a query of a proved
// shape skip the parse; the proof, too, is made on DuckDB's parse.
//
// One path to the engine: the guard makes the only two kinds of statement a reader's connection
// (database.Conn) runs: Checked, the statement of an accepted query, and SQL, ctool's own (constants,
// the identifiers schema/ defines and numbers), in which anything from outside is a bound argument.
// Text derived from an agent's query (the hints' rewrites, internal/querytree) runs only as the Checked
// that Check makes of it. The guard itself reaches no engine: it asks a Parser (database.Conn) for
// DuckDB's parse. The fence test (internal/fence) fails when any other package reaches the engine.
package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/azabudai/ctool/schema"
)

// Policy says what one dataset's queries may read and show.
type Policy struct {
	Relations map[string]bool // lower-cased table/view names a query may read (every public dataset's relations: joins across datasets are allowed)
	Macros    map[string]bool // lower-cased product macros that may be called: schema.Macros
	Hidden    []string        // lower-cased columns never shown in results (products: store_id)
}

// ForDataset is the policy of queries made through dataset d: every public dataset's relations, the
// product's macros, and d's own hidden columns.
func ForDataset(d *schema.Dataset) Policy {
	p := Policy{Relations: map[string]bool{}, Macros: map[string]bool{}}
	for _, m := range schema.Macros() {
		p.Macros[m] = true
	}
	for _, r := range schema.Relations() {
		p.Relations[strings.ToLower(r.Name)] = true
	}
	if d != nil {
		for _, c := range d.Columns {
			if c.Hidden {
				p.Hidden = append(p.Hidden, strings.ToLower(c.Name))
			}
		}
	}
	return p
}

// IsHidden reports whether a result column of that name is a hidden column, including the
// store_id_1, store_id_2 ... DuckDB names the second and later store_id of one result.
func (p Policy) IsHidden(column string) bool {
	name := strings.ToLower(column)
	if p.hidden(name) {
		return true
	}
	base := strings.TrimRight(name, "0123456789")
	return base != name && strings.HasSuffix(base, "_") && p.hidden(strings.TrimSuffix(base, "_"))
}

func (p Policy) hidden(lower string) bool {
	for _, h := range p.Hidden {
		if strings.ToLower(h) == lower {
			return true
		}
	}
	return false
}

// Rejection is a query refused by the guard; Error() gives the whole message for the agent.
type Rejection struct {
	Refused, Reason, Hint string
	// Parse is DuckDB's parser message when the text is not SQL it can parse: nothing forbidden was
	// asked, the agent only has to fix the query, so callers report it as an SQL error.
	Parse string
}

// Error says what was refused, why, and what to do instead, in one message.
func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("refused: ")
	b.WriteString(r.Refused)
	b.WriteString(".")
	if r.Reason != "" {
		b.WriteString(" ")
		b.WriteString(r.Reason)
	}
	if r.Hint != "" {
		b.WriteString(" ")
		b.WriteString(r.Hint)
	}
	return b.String()
}

// Checked is the one statement that runs an accepted query, made only by the guard: database.Conn.Run
// runs it.
type Checked struct {
	run  SQL
	args []any

	stmt  astObj // the statement as the guard read it (Statement)
	shape string // the shape's text, for a statement that runs a query shape (CheckShape)
	rows  int    // the rows of the answer (Rows)
}

// Text is the statement's text, for messages: DuckDB's errors may quote it.
func (c *Checked) Text() string { return c.run.text }

// Args are the statement's bound arguments: the query's text.
func (c *Checked) Args() []any { return append([]any(nil), c.args...) }

// Parser is DuckDB's parser as the one reader of the engine offers it (database.Conn): the JSON of
// json_serialize_sql for text bound as an argument, nothing of it run; null for a NULL answer.
type Parser interface {
	SerializeSQL(ctx context.Context, text string) (out string, null bool, err error)
}

// Rows is how many rows the answer has at most: the query's own LIMIT or the row cap, whichever is
// lower. The statement returns one row more when more match, so the caller reads Rows()+1 rows and
// keeps Rows().
func (c *Checked) Rows() int { return c.rows }

const (
	// onlySelect is the rule every refusal of a statement repeats, so the agent learns what is allowed.
	onlySelect = "ctool query runs exactly one read-only SELECT statement (WITH, UNION, VALUES, ORDER BY, " +
		"window functions and QUALIFY are fine)."
	maxRowCap = 1_000_000_000
	// DuckDB's built-in is named with its catalog so that no table macro named query in the database
	// file can stand in.
	// query(?) parses the bound text itself and runs it only if it is one SELECT, so no text is ever
	// spliced around the agent's query and nothing needs parsing a second time. Only Check writes it:
	// Const refuses any text that calls query().
	runSQL = "SELECT * FROM system.main.query(?) AS ctool_q LIMIT "
)

// Check parses sqlText once with DuckDB's parser (json_serialize_sql, the text bound as a parameter),
// walks the AST once, and returns the statement that runs it with the row cap:
// "SELECT * FROM system.main.query(?) AS ctool_q LIMIT <rowCap+1>" with the text as its one argument
// (the caller reads Rows()+1 rows to know whether more matched). The text is sqlText unchanged, or,
// when its top-level LIMIT n is at most rowCap, sqlText with LIMIT n+1, itself parsed, walked and
// proved to be the query but for that number (limit.go). It returns a *Rejection for refused input;
// any other error is DuckDB's or the context's, and wraps ctx.Err() when ctx is done.
func Check(ctx context.Context, conn Parser, sqlText string, p Policy, rowCap int) (*Checked, error) {
	if conn == nil {
		return nil, errors.New("guard: Check needs a connection")
	}
	if rowCap < 1 || rowCap > maxRowCap {
		return nil, fmt.Errorf("guard: rowCap must be between 1 and %d, got %d", maxRowCap, rowCap)
	}
	if rej := checkText(sqlText); rej != nil {
		return nil, rej
	}
	stmt, err := parse(ctx, conn, sqlText)
	if err != nil {
		return nil, err
	}
	if err := walkStatement(stmt, p); err != nil {
		return nil, err
	}
	c := &Checked{run: SQL{runSQL + strconv.Itoa(rowCap+1)}, args: []any{sqlText}, stmt: stmt, rows: rowCap}
	n, raise, rej := ownLimit(stmt, rowCap)
	if rej != nil {
		return nil, rej
	}
	if raise {
		text, err := raisedCheck(ctx, conn, sqlText, stmt, n, p, rowCap)
		if err != nil {
			return nil, err
		}
		c.args, c.rows = []any{text}, n
	}
	return c, nil
}

// Parse returns the one statement of sqlText as DuckDB's parser reads it (numbers as json.Number), for
// readers of a query the guard already accepted, such as the hints of an empty result; a text Check
// would refuse gets its *Rejection. The tree is the caller's to read.
func Parse(ctx context.Context, conn Parser, sqlText string) (map[string]any, error) {
	return parse(ctx, conn, sqlText)
}

// checkText refuses text the parser should never see: too long, not UTF-8, or with a NUL byte, which
// C APIs would cut the executed text at while the parser read past it.
func checkText(s string) *Rejection {
	// The limit (schema.MaxQueryChars) keeps a runaway prompt from reaching the parser; it counts
	// characters as the tools' input schema does. Past 4 bytes a character the count is not needed.
	switch {
	case len(s) > utf8.UTFMax*schema.MaxQueryChars || utf8.RuneCountInString(s) > schema.MaxQueryChars:
		return &Rejection{Refused: "query too long", Reason: fmt.Sprintf("The text has %d characters; the limit is %d.", utf8.RuneCountInString(s), schema.MaxQueryChars), Hint: "Send a shorter SELECT."}
	case !utf8.ValidString(s):
		return &Rejection{Refused: "invalid text", Reason: "The query is not valid UTF-8.", Hint: "Send the SELECT as plain UTF-8 text."}
	case strings.ContainsRune(s, 0):
		return &Rejection{Refused: "NUL byte", Reason: "The query contains a NUL (0x00) character.", Hint: "Remove it and send the SELECT again."}
	}
	return nil
}

// serializeResult is json_serialize_sql's answer; it reports failures in the JSON instead of raising.
type serializeResult struct {
	Error        bool     `json:"error"`
	ErrorType    string   `json:"error_type"`
	ErrorMessage string   `json:"error_message"`
	Statements   []astObj `json:"statements"`
}

// parse returns the one statement of text as DuckDB's parser reads it, or a *Rejection.
func parse(ctx context.Context, conn Parser, text string) (astObj, error) {
	out, null, err := conn.SerializeSQL(ctx, text)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("guard: json_serialize_sql: %w (%v)", ctx.Err(), err)
		}
		return nil, fmt.Errorf("guard: json_serialize_sql: %w", err)
	}
	if null {
		return nil, errors.New("guard: json_serialize_sql returned NULL")
	}
	return decodeSerialized(text, out)
}

// decodeSerialized reads json_serialize_sql's output for text: the one statement's AST, a parse
// failure, or a rejection of no or several statements.
func decodeSerialized(text, out string) (astObj, error) {
	// One pass over the text, numbers kept as json.Number: query_location is 2^64-1 and list_aggr's
	// names must stay strings.
	var res serializeResult
	if err := unmarshalNumbers([]byte(out), &res); err != nil {
		// DuckDB writes a constant that overflows a DOUBLE (1e1000) as a bare Infinity, which is not JSON.
		if err := unmarshalNumbers(quoteNonFinite(out), &res); err != nil {
			return nil, fmt.Errorf("guard: reading json_serialize_sql's output: %w", err)
		}
	}
	if res.Error {
		return nil, parseFailure(text, &res)
	}
	switch n := len(res.Statements); {
	case n == 0:
		return nil, &Rejection{
			Refused: "empty query",
			Reason:  "There is no SQL statement in the text (only whitespace or comments).",
			Hint:    "Send one SELECT, e.g. SELECT * FROM events LIMIT 5.",
		}
	case n > 1:
		return nil, &Rejection{
			Refused: fmt.Sprintf("%d statements", n),
			Reason:  onlySelect,
			Hint:    "Send a single SELECT with nothing after its ';'; nothing was run.",
		}
	}
	if res.Statements[0] == nil {
		return nil, errors.New("guard: reading DuckDB's parse: a null statement")
	}
	return res.Statements[0], nil
}

// unmarshalNumbers decodes one JSON value that must fill all of b, numbers as json.Number.
func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("guard: text after the JSON value")
	}
	return nil
}

// parseFailure turns json_serialize_sql's error into a refusal the agent can act on.
func parseFailure(text string, res *serializeResult) *Rejection {
	msg := strings.TrimSpace(res.ErrorMessage)
	if msg != "" && !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	if strings.Contains(msg, "Only SELECT statements can be serialized") {
		return statementRejection(firstKeyword(text))
	}
	if res.ErrorType == "parser" {
		rej := &Rejection{
			Refused: "syntax error",
			Reason:  "DuckDB could not parse the query: " + msg,
			Hint:    "Fix the SQL and send it again; " + onlySelect,
		}
		if !forbiddenParse(text, msg) {
			rej.Parse = msg
		}
		return rej
	}
	return &Rejection{
		Refused: "query",
		Reason:  "DuckDB could not read the query (" + res.ErrorType + "): " + msg,
		Hint:    onlySelect,
	}
}

// nearWord is the word DuckDB's parser names in "syntax error at or near".
var nearWord = regexp.MustCompile(`at or near "([A-Za-z_]+)"`)

// forbiddenParse reports whether a parse failure is about a statement ctool forbids (a DELETE in
// parentheses, SELECT INTO, a CTE that is not a SELECT): that stays a refusal, while a typo is the
// agent's to fix.
func forbiddenParse(text, msg string) bool {
	if statementKinds[firstKeyword(text)] || strings.Contains(msg, "SELECT INTO") || strings.Contains(msg, "CTE needs a SELECT") {
		return true
	}
	m := nearWord.FindStringSubmatch(msg)
	return m != nil && statementKinds[strings.ToUpper(m[1])]
}

// statementKinds are the leading keywords of statements that are not a plain SELECT; they only name
// what was refused, the refusal itself comes from DuckDB's parser.
var statementKinds = nameSet(
	"INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "CREATE", "TRUNCATE", "COPY", "EXPORT", "IMPORT",
	"ATTACH", "DETACH", "INSTALL", "FORCE", "LOAD", "SET", "RESET", "PRAGMA", "CALL", "EXECUTE",
	"PREPARE", "DEALLOCATE", "CHECKPOINT", "VACUUM", "ANALYZE", "DESCRIBE", "SUMMARIZE", "SHOW",
	"EXPLAIN", "USE", "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "MERGE", "COMMENT",
	"PIVOT", "UNPIVOT", "PIVOT_WIDER", "PIVOT_LONGER", "REPLACE", "UPSERT",
)

func statementRejection(kw string) *Rejection {
	switch {
	case kw == "PIVOT" || kw == "PIVOT_WIDER" || kw == "UNPIVOT" || kw == "PIVOT_LONGER":
		return &Rejection{
			Refused: kw + " without an explicit IN list",
			Reason:  "DuckDB runs such a " + kw + " as several statements. " + onlySelect,
			Hint:    "List the values, e.g. PIVOT events ON registration_required IN ('True', 'False') USING count(*).",
		}
	case statementKinds[kw]:
		return &Rejection{Refused: kw, Reason: onlySelect}
	case kw == "" || kw == "SELECT" || kw == "WITH" || kw == "FROM" || kw == "VALUES" || kw == "TABLE":
		return &Rejection{
			Refused: "a statement that is not a SELECT",
			Reason:  onlySelect,
			Hint:    "The text holds a second statement after a ';', or a WITH followed by something other than SELECT; nothing was run. Send only the SELECT.",
		}
	default:
		return &Rejection{Refused: kw, Reason: onlySelect}
	}
}

// firstKeyword returns the upper-cased first word of text after whitespace, comments and '('; it is
// used only to name a refused statement in the message.
func firstKeyword(text string) string {
	s := text
	for {
		t := strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
		switch {
		case strings.HasPrefix(t, "--"):
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				s = t[i+1:]
			} else {
				s = ""
			}
			continue
		case strings.HasPrefix(t, "/*"):
			s = skipBlockComment(t)
			continue
		}
		s = t
		break
	}
	end := 0
	for end < len(s) && end < 32 {
		c := s[end]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			break
		}
		end++
	}
	return strings.ToUpper(s[:end])
}

// skipBlockComment drops a leading /* ... */, which may nest as in PostgreSQL.
func skipBlockComment(s string) string {
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i : i+2] {
		case "/*":
			depth++
			i++
		case "*/":
			depth--
			i++
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

// quoteNonFinite returns the JSON text with the bare tokens Infinity, -Infinity and NaN outside strings
// written as strings, so that the rest of the tree reads as it is.
func quoteNonFinite(text string) []byte {
	out := make([]byte, 0, len(text)+16)
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(text[i:], tok) {
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}
