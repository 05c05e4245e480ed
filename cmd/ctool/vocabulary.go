package main

import (
	"context"
	"os"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// vocabulary reads the label values of the database at path (--db), for `ctool schema` and `ctool tools`.
// With no database built yet (or one that cannot be read) it returns nil: the descriptions then list
// no label values and say where they come from (schema.Vocabulary), and the command still succeeds.
func vocabulary(ctx context.Context, path string) schema.Vocabulary {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	live := database.NewLive(path)
	defer live.Close()
	ctx, cancel := context.WithTimeout(ctx, query.DefaultTimeout)
	defer cancel()
	v, err := query.NewEngine(live).Vocabulary(ctx)
	if err != nil {
		return nil
	}
	return v
}
