package query

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/schema"
)

// Vocabulary reads the values of every label column (schema.LabelColumns) from the current build,
// sorted, at most one more than a description lists. It reads only public relations, through the same
// locked-down connection as queries, once per build: the values are kept with the hints' (hint_cache.go).
func (e *Engine) Vocabulary(ctx context.Context) (schema.Vocabulary, error) {
	v := schema.Vocabulary{}
	err := e.onBuild(ctx, func(build string, conn *sql.Conn) error {
		cache := e.hints.of(build)
		for _, l := range schema.LabelColumns() {
			src := "SELECT CAST(" + database.QuoteIdent(l.Column) + " AS VARCHAR) AS v FROM " + database.QuoteIdent(l.Relation)
			if l.List {
				src = "SELECT CAST(unnest(" + database.QuoteIdent(l.Column) + ") AS VARCHAR) AS v FROM " + database.QuoteIdent(l.Relation)
			}
			// COLLATE C: every stored spelling, sorted by bytes (a NOCASE DISTINCT would keep one of them).
			values, err := cache.values(ctx, conn, fmt.Sprintf("SELECT DISTINCT v COLLATE C AS v FROM (%s) WHERE v IS NOT NULL ORDER BY 1 LIMIT 31", src))
			if err != nil {
				return failure(ctx, err)
			}
			v[schema.VocabKey(l.Relation, l.Column)] = values
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}
