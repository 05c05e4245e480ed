package database

import "strings"

// QuoteIdent quotes a name for DuckDB's SQL as a double-quoted identifier, doubling any quote in it.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
