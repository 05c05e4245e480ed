package query

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/azabudai/ctool/textout"
)

// Stores whose hours could not be extracted have no store_hours rows: to a query over store_hours they
// look closed every day. An answer that reads store_hours (or is_open, which reads it) says how many
// there are, so "closed on Mondays" is not read as a fact about them.

// unknownHoursNote is the note for a query that reads store_hours while stores of unknown hours exist,
// "" otherwise. The text test only decides whether to count: it is no boundary.
func unknownHoursNote(ctx context.Context, conn *sql.Conn, sqlText string) string {
	lower := strings.ToLower(sqlText)
	if !strings.Contains(lower, "store_hours") && !strings.Contains(lower, "is_open") {
		return ""
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM stores_typed WHERE NOT hours_known").Scan(&n); err != nil || n == 0 {
		return "" // none, or a build from before hours_known
	}
	return fmt.Sprintf("%d %s unknown hours (stores_typed.hours_known = false): no store_hours rows and is_open is false for them, which does not mean closed",
		n, textout.Plural(n, "store has", "stores have"))
}
