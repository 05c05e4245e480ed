package hint

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/internal/textout"
)

// UnreadPrice: a description can state a price the price rule cannot read ("時価", "価格は店頭にて"),
// and then price_yen is NULL, which reads like "no price". When a query reads price_yen or
// price_max_yen and the build has such products, the answer's note names them (at most maxNamed,
// then a count), so the agent reads their descriptions instead of taking NULL as free or unknown.
const UnreadPrice Kind = "unread-price"

// The products whose description holds a price the rule could not read, and the first of them with
// the start of their description.
const countUnread = "SELECT count(*) FROM ctool_derive.product_prices WHERE price_unread"

var firstUnread = guard.Format("SELECT p.product_name || ' (' || left(p.product_description, 30) || "+
	"CASE WHEN length(p.product_description) > 30 THEN '…' ELSE '' END || ')' "+
	"FROM products p POSITIONAL JOIN ctool_derive.product_prices pr WHERE pr.price_unread LIMIT %s", guard.Int(maxNamed))

// priceColumns are the columns the note is about.
var priceColumns = []string{"price_yen", "price_max_yen"}

// PriceNotes is q's UnreadPrice note, if it has one.
func PriceNotes(ctx context.Context, conn *database.Conn, cache *Cache, q *Query) []Hint {
	lower := strings.ToLower(q.Text)
	if !strings.Contains(lower, priceColumns[0]) && !strings.Contains(lower, priceColumns[1]) {
		return nil // the text test spares every other query the parse
	}
	stmt, ok := q.statement(ctx, conn)
	if !ok || !finds(querytree.Whole(stmt), func(x querytree.Expr) bool {
		names := x.ColumnNames()
		if len(names) == 0 {
			return false
		}
		last := strings.ToLower(names[len(names)-1])
		return last == priceColumns[0] || last == priceColumns[1]
	}) {
		return nil // the words were in a string or a comment
	}
	row, err := cache.Row(ctx, conn, guard.Const(countUnread), 1)
	if err != nil {
		return nil // a build from before price_unread
	}
	n, err := strconv.Atoi(row[0].String)
	if err != nil || n == 0 {
		return nil
	}
	names, err := cache.Values(ctx, conn, firstUnread)
	if err != nil {
		return nil
	}
	list := quoteList(names)
	if n > len(names) {
		list += fmt.Sprintf(" and %d more", n-len(names))
	}
	return []Hint{{Kind: UnreadPrice, Text: fmt.Sprintf("%d %s a price the price rule could not read (時価, 店頭にて and the like), so %s NULL there: %s; read product_description for %s",
		n, textout.Plural(n, "product states", "products state"), textout.Plural(n, "its price_yen is", "their price_yen is"), list, textout.Plural(n, "it", "them"))}}
}
