package database

import "strings"

// QuoteIdent quotes a name for DuckDB's SQL as a double-quoted identifier, doubling any quote in it.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// QuoteString quotes text for DuckDB's SQL as a single-quoted string literal, doubling any quote in it.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
