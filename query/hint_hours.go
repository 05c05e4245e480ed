package query

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/textout"
)

// Stores whose hours could not be extracted have no store_hours rows: to a query over store_hours they
// look closed every day. An answer that reads store_hours (or is_open, which reads it) says how many
// there are, so "closed on Mondays" is not read as a fact about them.

// unknownHoursNote is the note for a query that reads store_hours while stores of unknown hours exist,
// "" otherwise. The text test only decides whether to count: it is no boundary.
func unknownHoursNote(ctx context.Context, conn *guard.Conn, cache *buildHints, sqlText string) string {
	lower := strings.ToLower(sqlText)
	if !strings.Contains(lower, "store_hours") && !strings.Contains(lower, "is_open") {
		return ""
	}
	row, err := cache.row(ctx, conn, guard.Const("SELECT count(*) FROM stores_typed WHERE NOT hours_known"), 1)
	if err != nil {
		return "" // a build from before hours_known
	}
	n, err := strconv.Atoi(row[0].String)
	if err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s unknown hours (stores_typed.hours_known = false): no store_hours rows and is_open is false for them, which does not mean closed",
		n, textout.Plural(n, "store has", "stores have"))
}
