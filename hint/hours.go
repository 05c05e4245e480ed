package hint

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/guard"
	"github.com/azabudai/ctool/textout"
)

// UnknownHours: stores whose hours could not be extracted have no store_hours rows: to a query over
// store_hours they look closed every day. An answer that reads store_hours (or is_open, which reads
// it) says how many there are, so "closed on Mondays" is not read as a fact about them.
const UnknownHours Kind = "unknown-hours"

// Notes are the remarks on q's answer, with rows or without: the stores of unknown hours, for a query
// that reads store_hours or is_open while there are some. The text test only decides whether to
// count: it is no boundary.
func Notes(ctx context.Context, conn *guard.Conn, cache *Cache, q Query) []Hint {
	lower := strings.ToLower(q.Text)
	if !strings.Contains(lower, "store_hours") && !strings.Contains(lower, "is_open") {
		return nil
	}
	row, err := cache.row(ctx, conn, guard.Const("SELECT count(*) FROM stores_typed WHERE NOT hours_known"), 1)
	if err != nil {
		return nil // a build from before hours_known
	}
	n, err := strconv.Atoi(row[0].String)
	if err != nil || n == 0 {
		return nil
	}
	return []Hint{{Kind: UnknownHours, Text: fmt.Sprintf("%d %s unknown hours (stores_typed.hours_known = false): no store_hours rows and is_open is false for them, which does not mean closed",
		n, textout.Plural(n, "store has", "stores have"))}}
}
