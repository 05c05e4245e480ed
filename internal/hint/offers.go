package hint

import (
	"context"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/querytree"
	"github.com/azabudai/ctool/schema"
	"github.com/azabudai/ctool/schema/offers"
)

// OfferText: a store's offers (vegan_info, accessibility, ...) are free text that says no as often as
// yes ("ヴィーガン対応はしておりません"), so a condition on the text (IS NOT NULL, LIKE '%ヴィーガン%')
// also finds the stores that do not offer it. When a query's WHERE tests such a column and the query
// never names the stores_typed column that reads it (offers.Topics), the note names that column.
const OfferText Kind = "offer-text"

// OfferNotes is q's OfferText notes, one per offer it tests by its text alone. They follow the
// query's column references alone, never its literals (a string that spells vegan_available names no
// column), so every query of one shape (guard.Shape: the same text but for its string literals) has
// the same notes, and a caller may keep them for the shape.
func OfferNotes(ctx context.Context, conn *database.Conn, q *Query) []Hint {
	// The text test spares every other query the parse: the statement decides.
	lower := strings.ToLower(q.Text)
	var topics []offers.Topic
	for _, t := range offers.Topics {
		if strings.Contains(lower, t.Source) {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return nil
	}
	stmt, ok := q.statement(ctx, conn)
	if !ok {
		return nil
	}
	tested := map[string]bool{}
	selects, ctes := querytree.Selects(stmt)
	for _, s := range selects {
		scope := scopeOf(s, ctes)
		s.Where().Walk(func(e querytree.Expr) bool {
			if col, ok := resolve(e, scope); ok && col.dataset == schema.Stores {
				tested[strings.ToLower(col.name)] = true
			}
			return true
		})
	}
	named := map[string]bool{} // every column the query names, anywhere, by its own name
	querytree.Whole(stmt).Walk(func(e querytree.Expr) bool {
		if names := e.ColumnNames(); len(names) > 0 {
			named[strings.ToLower(names[len(names)-1])] = true
		}
		return true
	})
	var out []Hint
	for _, t := range topics {
		if tested[t.Source] && !named[t.Column] {
			out = append(out, Hint{Kind: OfferText, Condition: t.Source,
				Text: t.Source + " is free text and may say no, so a test on it also finds stores without it: filter on stores_typed." +
					t.Column + " (true, false, or NULL when unknown) and read " + t.Source + " for the conditions"})
		}
	}
	return out
}
