package schema

import "strings"

// QuoteIdent quotes a name for DuckDB's SQL as a double-quoted identifier, doubling any quote in it:
// the one rule for every identifier ctool writes (guard.Ident, the macros, the exports).
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// QuoteString quotes text for DuckDB's SQL as a single-quoted string literal, doubling any quote in it:
// the one rule for every string ctool writes into SQL or shows as one.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
