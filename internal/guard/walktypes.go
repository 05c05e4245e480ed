package guard

// Types.

import (
	"strconv"
)

// checkCastType allows DuckDB's built-in types, nested or not; a named type (CREATE TYPE) would be looked
// up in the catalog and is refused.
func checkCastType(v any) *Rejection {
	t, ok := v.(astObj)
	if !ok {
		return unknownPart("type")
	}
	id := astStr(t, "id")
	if rej := checkFields(t, typeSpec); rej != nil {
		return rej
	}
	if t["type_info"] == nil {
		if id == "" || id == "UNBOUND" || id == "USER" {
			return unknownPart("type " + id)
		}
		return nil
	}
	info, ok := t["type_info"].(astObj)
	if !ok {
		return unknownPart("type " + id)
	}
	kind := astStr(info, "type")
	s, ok := typeInfoSpecs[kind]
	if !ok {
		return unknownPart("type " + id)
	}
	if rej := checkFields(info, s); rej != nil {
		return rej
	}
	switch kind {
	case "LIST_TYPE_INFO", "ARRAY_TYPE_INFO":
		return checkCastType(info["child_type"])
	case "STRUCT_TYPE_INFO":
		kids, ok := info["child_types"].([]any)
		if !ok && info["child_types"] != nil {
			return unknownPart("STRUCT type")
		}
		for _, x := range kids {
			kv, ok := x.(astObj)
			if !ok {
				return unknownPart("STRUCT field")
			}
			if rej := checkCastType(kv["second"]); rej != nil {
				return rej
			}
		}
	case "UNBOUND_TYPE_INFO":
		name := astStr(info, "name")
		if astStr(info, "catalog") != "" || astStr(info, "schema") != "" || !allowedTypeNames[asciiLower(name)] {
			return &Rejection{
				Refused: "type " + strconv.Quote(name),
				Reason:  "Casts may use DuckDB's built-in types only, not named types from the catalog.",
				Hint:    "Use e.g. VARCHAR, INTEGER, DOUBLE, DATE, TIMESTAMP, BOOLEAN, JSON, VARCHAR[], STRUCT(...).",
			}
		}
		if asciiLower(name) != "enum" && !astEmpty(info["user_type_modifiers"]) {
			return unknownPart("type modifiers on " + name)
		}
	}
	return nil
}

var (
	typeSpec      = &spec{what: "type", fields: plain("id", "type_info")}
	typeInfoSpecs = map[string]*spec{
		"DECIMAL_TYPE_INFO": {what: "DECIMAL type", fields: plain("type", "alias", "width", "scale")},
		"LIST_TYPE_INFO":    {what: "LIST type", fields: plain("type", "alias", "child_type", "size")},
		"ARRAY_TYPE_INFO":   {what: "LIST type", fields: plain("type", "alias", "child_type", "size")},
		"STRUCT_TYPE_INFO":  {what: "STRUCT type", fields: plain("type", "alias", "child_types")},
		"GENERIC_TYPE_INFO": {what: "type", fields: plain("type", "alias")},
		"UNBOUND_TYPE_INFO": {what: "type", fields: plain("type", "alias", "name", "catalog", "schema", "user_type_modifiers")},
	}
)
