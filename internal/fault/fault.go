// Package ctool holds what every part of ctool shares: the error meant for the people and agents
// who run it. Each Kind maps to one exit status and to the "kind" of the JSON error, and the exit
// status tables in the help and in docs/commands.md are generated from Kinds.
package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// Kind says what went wrong in one word that scripts and agents can match on.
type Kind string

const (
	KindUsage       Kind = "usage"        // the command line or a setting is wrong
	KindInvalidData Kind = "invalid_data" // the input data has problems
	KindStale       Kind = "stale"        // status --check: the database is out of date
	KindRefused     Kind = "refused"      // the guard refused a query
	KindSQL         Kind = "sql_error"    // DuckDB could not run the query
	KindTimeout     Kind = "timeout"      // the work ran past its time limit
	KindTooLarge    Kind = "too_large"    // the query's result or memory outgrew its limit
	KindBusy        Kind = "busy"         // every query worker is taken and the queue is full
	KindCrashed     Kind = "crashed"      // the query crashed the query engine
	KindNotFound    Kind = "not_found"    // no profile has that id
	KindNoDatabase  Kind = "no_database"  // the database is missing or unusable
	KindIO          Kind = "io"           // a file or directory could not be read or written
	KindConflict    Kind = "conflict"     // publish: another publish moved latest first
	KindUnavailable Kind = "unavailable"  // the object store did not answer, or refused the request
	KindInternal    Kind = "internal"     // anything else: a bug or an environment failure
)

// KindInfo is one row of the exit status table.
type KindInfo struct {
	Kind    Kind
	Status  int
	Meaning string
}

// Kinds lists every kind with its exit status, in the order the tables show them. Status 0 is success.
var Kinds = []KindInfo{
	{KindInvalidData, 1, "the input data has problems (the report says where)"},
	{KindStale, 1, "status --check: a source changed, or the build is out of date"},
	{KindRefused, 1, "the query was refused: it is not one read-only SELECT on the allowed tables"},
	{KindSQL, 1, "DuckDB could not run the query (its message is quoted)"},
	{KindTimeout, 1, "the query ran past --timeout and was stopped"},
	{KindTooLarge, 1, "the query's result or memory use grew past its limit and was stopped"},
	{KindBusy, 1, "ctool mcp: every query worker is busy and the queue is full; retry shortly"},
	{KindNotFound, 1, "no profile has that id"},
	{KindConflict, 1, "publish: another publish moved latest first; the build was uploaded, publish again"},
	{KindInternal, 1, "an unexpected failure"},
	{KindUsage, 2, "the command line or NARRATIVE_DATA_FILE is wrong"},
	{KindNoDatabase, 3, "the database is missing or unusable (Try: ctool ingest, or --db PATH / CTOOL_DB)"},
	{KindIO, 4, "a file or directory could not be read or written"},
	{KindCrashed, 5, "the query crashed the query engine and was not run to the end"},
	{KindUnavailable, 6, "the object store did not answer, or refused the request (its URL, network or credentials)"},
}

// Status is the process exit status of a kind.
func (k Kind) Status() int {
	for _, i := range Kinds {
		if i.Kind == k {
			return i.Status
		}
	}
	return 1
}

// Error is a failure explained for people: what kind, what happened, and what to try.
type Error struct {
	Kind    Kind
	Message string
	Hint    string // a command or change to try, without the "Try:" prefix
	Err     error  // the underlying cause, for errors.Is/As
}

func (e *Error) Error() string { return e.Message }

// MarshalJSON writes the error as agents read it: {"error": message, "kind": kind, "hint": hint},
// the hint only when there is one.
func (e *Error) MarshalJSON() ([]byte, error) {
	doc := struct {
		Error string `json:"error"`
		Kind  Kind   `json:"kind"`
		Hint  string `json:"hint,omitempty"`
	}{e.Message, e.Kind, e.Hint}
	// Without HTML escapes: a message quoting the query keeps its < and &.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind with a formatted message; a %w verb keeps the cause.
func Errorf(kind Kind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Message: err.Error(), Err: errors.Unwrap(err)}
}

// WithHint returns a copy of e that suggests hint.
func (e *Error) WithHint(hint string) *Error {
	c := *e
	c.Hint = hint
	return &c
}

// MaxMessageBytes and MaxHintBytes bound the text of an error: a query can make DuckDB quote
// megabytes back (CAST(repeat('x', 5000000) AS INT)), and what a reader needs is the start of it.
const (
	MaxMessageBytes = 4 << 10
	MaxHintBytes    = 1 << 10
)

// Bounded is s cut to at most n bytes on a character boundary, saying how many bytes were left out.
func Bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const room = 40 // for the note
	cut := max(n-room, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// Explain turns any error into one for people: an *Error in its chain as it is, a context deadline
// as a timeout, a file system failure as I/O, anything else as internal; its message and hint within
// MaxMessageBytes and MaxHintBytes. It returns nil for nil.
func Explain(err error) *Error {
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
	case errors.Is(err, context.DeadlineExceeded):
		e = &Error{Kind: KindTimeout, Message: err.Error(), Err: err}
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			e = &Error{Kind: KindIO, Message: err.Error(), Err: err}
		} else {
			e = &Error{Kind: KindInternal, Message: err.Error(), Err: err}
		}
	}
	if len(e.Message) > MaxMessageBytes || len(e.Hint) > MaxHintBytes {
		c := *e
		c.Message, c.Hint = Bounded(e.Message, MaxMessageBytes), Bounded(e.Hint, MaxHintBytes)
		return &c
	}
	return e
}

// ExitStatusHelp is the EXIT STATUS section of a command's help: success, then the given kinds.
func ExitStatusHelp(success string, kinds ...Kind) string {
	var b strings.Builder
	b.WriteString("EXIT STATUS:\n")
	fmt.Fprintf(&b, "   0  %-12s %s\n", "", success)
	for _, i := range Kinds {
		for _, k := range kinds {
			if i.Kind == k {
				fmt.Fprintf(&b, "   %d  %-12s %s\n", i.Status, i.Kind, i.Meaning)
			}
		}
	}
	return b.String()
}
