package query

import (
	"context"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// Vocabulary reads the values of every label column (schema.LabelColumns) from the current build,
// sorted, at most one more than a description lists, and the place its record names. It reads only
// public relations, through the same locked-down connection as queries, once per build: the values are
// kept with the hints' (hint.Cache).
func (e *Engine) Vocabulary(ctx context.Context) (schema.Vocabulary, error) {
	v := schema.Vocabulary{}
	err := e.onBuild(ctx, func(b *database.Build, conn *database.Conn) error {
		v.SetPlace(b.Place())
		cache := e.hints.For(b.ID)
		for _, l := range schema.LabelColumns() {
			col, rel := guard.MustIdent(l.Column), guard.MustIdent(l.Relation)
			src := guard.Format("SELECT CAST(%s AS VARCHAR) AS v FROM %s", col, rel)
			if l.List {
				src = guard.Format("SELECT CAST(unnest(%s) AS VARCHAR) AS v FROM %s", col, rel)
			}
			// COLLATE C: every stored spelling, sorted by bytes (a NOCASE DISTINCT would keep one of them).
			values, err := cache.Values(ctx, conn, guard.Format("SELECT DISTINCT v COLLATE C AS v FROM (%s) WHERE v IS NOT NULL ORDER BY 1 LIMIT %s", src, guard.Int(schema.MaxListed+1)))
			if err != nil {
				return failure(ctx, err)
			}
			v[schema.VocabKey(l.Relation, l.Column)] = values
		}
		// One row of each table, the first by its key, as the examples of its columns: a pairing of
		// values the description shows is then true of this build.
		for _, d := range schema.Public() {
			cols, keys := make([]guard.SQL, len(d.Columns)), make([]guard.SQL, len(d.Key))
			for i, c := range d.Columns {
				cols[i] = guard.Format("CAST(%s AS VARCHAR)", guard.MustIdent(c.Name))
			}
			for i, k := range d.Key {
				keys[i] = guard.MustIdent(k)
			}
			row, err := cache.Row(ctx, conn, guard.Format("SELECT %s FROM %s ORDER BY %s LIMIT 1",
				guard.Join(cols, ", "), guard.MustIdent(d.Table), guard.Join(keys, ", ")), len(cols))
			if err != nil {
				continue // an empty table: schema/'s examples stay
			}
			for i, c := range d.Columns {
				if row[i].Valid {
					v[schema.ExampleKey(d.Table, c.Name)] = []string{row[i].String}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}
