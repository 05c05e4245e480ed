package schema

import "time"

// RowCap is the most rows a query returns; the help states it and the query side enforces it.
const RowCap = 10

// Macros are the product's SQL macros, created by the main database's migrations: the only functions
// of the database file a query may call, and the ones the help teaches.
const (
	MacroFold     = "fold"      // fold(text): the text as fold.Fold folds it, to compare names however typed
	MacroIsOpen   = "is_open"   // is_open(store_id, ts): the store is open at that Tokyo time
	MacroTokyoNow = "tokyo_now" // tokyo_now(): the current time in Tokyo, a TIMESTAMP
)

// Macros lists every product macro, lower-cased, in order.
func Macros() []string { return []string{MacroFold, MacroIsOpen, MacroTokyoNow} }

// MaxQueryChars is the longest query text, in characters (Unicode code points), that ctool query and
// the search tools accept. It is counted in characters, not bytes, because the tools' input schema
// states it as JSON Schema's maxLength, which counts characters: counted alike, a query the schema
// accepts is never refused by the guard for its length, in Japanese as in ASCII. At 4 bytes a
// character at most, the parser never sees more than 400 KB.
const MaxQueryChars = 100_000

// Tokyo is where the data's times are: the area's. Japan keeps no daylight saving time, so a fixed
// UTC+9 needs no time zone database on the machine.
var Tokyo = time.FixedZone("JST", 9*60*60)
