package main

import (
	"context"
	"os"
	"time"

	"github.com/azabudai/ctool/database"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

// vocabulary reads the label values of the database --db names, for `ctool schema` and `ctool tools`.
// With no database built yet (or one that cannot be read) it returns nil: the descriptions then list
// schema/'s own words, and the command still succeeds.
func (e *env) vocabulary(c *cli.Context) schema.Vocabulary {
	path := e.dbPath(c)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	live := database.NewLive(path)
	defer live.Close()
	ctx, cancel := context.WithTimeout(c.Context, 5*time.Second)
	defer cancel()
	v, err := query.NewEngine(live).Vocabulary(ctx)
	if err != nil {
		return nil
	}
	return v
}
