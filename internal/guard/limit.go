package guard

// The query's own LIMIT. An answer's truncated says whether more rows match than came back, whoever
// wrote the LIMIT: a statement whose top-level LIMIT n is within the row cap runs with LIMIT n+1, and
// the caller keeps n rows (Checked.Rows); one more means more matched. The text that runs is the
// agent's with only that number's digits changed, and it runs only once DuckDB's parse of it has been
// walked like any query's and proved to be the accepted query's tree with that one number changed.
// (Writing the tree back with json_deserialize_sql, as the hints do, changes more than the number:
// VALUES comes back as a subquery, IS NOT true as a cast, so that parse is not the query's.)

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ownLimit reads the top-level LIMIT of a statement the walk accepted. raise is true when it is a
// whole number n from 0 to rowCap: the statement must run with n+1. Without a LIMIT, with LIMIT ALL
// (or NULL), a number past the cap or a negative one (which DuckDB refuses), the row cap alone tells
// whether more matched. A LIMIT in percent or written as an expression is refused: how many rows it
// keeps is known only once it runs, so no statement can fetch the one row after them.
func ownLimit(stmt astObj, rowCap int) (n int, raise bool, rej *Rejection) {
	var limit astObj
	for _, m := range modifiers(stmt) {
		mod, _ := m.(astObj)
		switch astStr(mod, "type") {
		case "LIMIT_PERCENT_MODIFIER":
			return 0, false, limitRejection("LIMIT in percent", rowCap)
		case "LIMIT_MODIFIER":
			if limit != nil {
				return 0, false, unknownPart("a second LIMIT")
			}
			limit = mod
		}
	}
	lim, _ := limit["limit"].(astObj)
	if lim == nil {
		return 0, false, nil // no LIMIT, or OFFSET alone
	}
	val, _ := lim["value"].(astObj)
	if astStr(lim, "class") != "CONSTANT" || val == nil {
		return 0, false, limitRejection("a LIMIT that is an expression", rowCap)
	}
	if null, _ := val["is_null"].(bool); null {
		return 0, false, nil // LIMIT ALL
	}
	typ, _ := val["type"].(astObj)
	if !integerTypes[astStr(typ, "id")] {
		return 0, false, limitRejection("a LIMIT that is not a whole number", rowCap)
	}
	num, ok := val["value"].(json.Number)
	if !ok {
		return 0, false, nil // a HUGEINT, far past the cap
	}
	v, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil || v < 0 || v > int64(rowCap) {
		return 0, false, nil
	}
	return int(v), true, nil
}

// modifiers are the result modifiers of the statement's top node (ORDER BY, LIMIT, DISTINCT ON).
func modifiers(stmt astObj) []any {
	node, _ := stmt["node"].(astObj)
	mods, _ := node["modifiers"].([]any)
	return mods
}

// integerTypes are the types DuckDB's parser gives an integer constant.
var integerTypes = nameSet("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")

func limitRejection(what string, rowCap int) *Rejection {
	return &Rejection{
		Refused: what,
		Reason:  "An answer says whether more rows match than it returns (truncated); for that, ctool needs LIMIT as a number of rows.",
		Hint:    fmt.Sprintf("Write LIMIT with a number, e.g. LIMIT 5, or leave it out (at most %d rows come back).", rowCap),
	}
}

// withLimit is a copy of stmt whose top-level LIMIT is the constant n; stmt itself is unchanged.
func withLimit(stmt astObj, n int) astObj {
	mods := modifiers(stmt)
	newMods := make([]any, len(mods))
	for i, m := range mods {
		newMods[i] = m
		if mod, _ := m.(astObj); astStr(mod, "type") == "LIMIT_MODIFIER" {
			lim, _ := mod["limit"].(astObj)
			newLim := copyObj(lim)
			newLim["value"] = astObj{"is_null": false, "type": astObj{"id": "INTEGER", "type_info": nil}, "value": json.Number(strconv.Itoa(n))}
			newMod := copyObj(mod)
			newMod["limit"] = newLim
			newMods[i] = newMod
		}
	}
	node, _ := stmt["node"].(astObj)
	newNode := copyObj(node)
	newNode["modifiers"] = newMods
	out := copyObj(stmt)
	out["node"] = newNode
	return out
}

func copyObj(o astObj) astObj {
	out := make(astObj, len(o))
	for k, v := range o {
		out[k] = v
	}
	return out
}

// raisedLimit is text with its top-level LIMIT n written n+1: the digits at the place DuckDB's parse of
// text (stmt) gives the number are replaced, and nothing else. ok is false when they are not n's
// plain digits. The callers prove the result by DuckDB's parse of it, never by this function.
func raisedLimit(text string, stmt astObj, n int) (string, bool) {
	var lim astObj
	for _, m := range modifiers(stmt) {
		if mod, _ := m.(astObj); astStr(mod, "type") == "LIMIT_MODIFIER" {
			lim, _ = mod["limit"].(astObj)
		}
	}
	at, err := strconv.Atoi(numberString(lim["query_location"]))
	if err != nil || at < 0 || at >= len(text) {
		return "", false
	}
	end := at
	for end < len(text) && (text[end] >= '0' && text[end] <= '9' || text[end] == '_') {
		end++
	}
	v, err := strconv.Atoi(strings.ReplaceAll(text[at:end], "_", ""))
	if err != nil || v != n {
		return "", false
	}
	return text[:at] + strconv.Itoa(n+1) + text[end:], true
}

// raisedCheck is the text that runs sqlText, whose parse stmt the walk accepted under p, with its
// top-level LIMIT n raised to n+1. That text is parsed and walked as any query is, and its parse must
// be stmt's with only that number changed; a query for which it cannot be written is refused, never
// run as something else.
func raisedCheck(ctx context.Context, conn Parser, sqlText string, stmt astObj, n int, p Policy, rowCap int) (string, error) {
	text, ok := raisedLimit(sqlText, stmt, n)
	if !ok {
		return "", unraisable(rowCap)
	}
	got, err := parse(ctx, conn, text)
	if err != nil {
		if _, isRej := err.(*Rejection); isRej {
			return "", unraisable(rowCap)
		}
		return "", err
	}
	if rej := walkStatement(got, p); rej != nil {
		return "", rej
	}
	want := withLimit(stmt, n+1)
	cmp := shapeComparer{exact: true}
	if !cmp.same(got["node"], want["node"], "") {
		return "", unraisable(rowCap)
	}
	return text, nil
}

// unraisable refuses a LIMIT whose number cannot be written one higher with nothing else changed.
func unraisable(rowCap int) *Rejection {
	return &Rejection{
		Refused: "this LIMIT",
		Reason:  "An answer says whether more rows match than it returns (truncated); for that, ctool runs the query with its LIMIT one row higher, and could not change this one alone.",
		Hint:    fmt.Sprintf("Write LIMIT with plain digits, e.g. LIMIT 5, or leave it out (at most %d rows come back).", rowCap),
	}
}
