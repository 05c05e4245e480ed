package profile

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
)

// The rules for a profile id, for every caller: exactly one id (ParseID on a command line, CheckJSONID
// on a tool call), trimmed and not blank (Find, through checkID).

// errOneID answers more than one id, or a list of them.
func errOneID() error { return &fault.Error{Kind: fault.KindUsage, Message: MsgOneID} }

// ParseID returns the profile id of a command line's arguments: the one argument, or "" when there is
// none (Find answers that with MsgNoProfileID). More than one is refused with MsgOneID.
func ParseID(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		return args[0], nil
	}
	return "", errOneID()
}

// CheckJSONID refuses a tool call's profile_id that is a JSON list with MsgOneID, before any schema
// check would call it merely the wrong type.
func CheckJSONID(raw json.RawMessage) error {
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		return errOneID()
	}
	return nil
}

// checkID refuses an id that names nobody: empty, or nothing but blanks.
func checkID(id string) error {
	if strings.TrimSpace(id) == "" {
		return &fault.Error{Kind: fault.KindUsage, Message: MsgNoProfileID}
	}
	return nil
}
