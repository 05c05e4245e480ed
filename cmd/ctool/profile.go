package main

import (
	"context"
	"fmt"
	"io"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
)

func newProfileCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "return exactly one user's profile (tool get_user_profile)",
		UsageText: "ctool profile [--db PATH] [--format json|text] [--] PROFILE_ID",
		Description: schema.Help(schema.Profiles) +
			"\nThe profiles come from the file named by the environment variable NARRATIVE_DATA_FILE\n" +
			"(default narrative_data.csv), as ingested beside the main database." +
			exitStatus("the profile was found", fault.KindNotFound, fault.KindUsage, fault.KindNoDatabase),
		Flags: []cli.Flag{
			dbFlag(),
			formatFlag("output", "json", "json", "text"),
		},
		Action: func(c *cli.Context) error {
			opts := &profileOptions{out: e.stdout, db: e.dbPath(c), source: e.getenv("NARRATIVE_DATA_FILE")}
			var err error
			if opts.format, err = choiceValue(c, "format"); err != nil {
				return err
			}
			if opts.id, err = profile.ParseID(c.Args().Slice()); err != nil {
				return err
			}
			if err := e.capMemory(); err != nil {
				return err
			}
			return runProfile(c.Context, opts)
		},
	}
}

// profileOptions is a `ctool profile` command line, checked.
type profileOptions struct {
	out    io.Writer
	format string // json or text
	db     string
	source string // NARRATIVE_DATA_FILE: which ingested profiles file to read
	id     string
}

func runProfile(ctx context.Context, opts *profileOptions) error {
	live := database.NewLive(opts.db)
	defer live.Close()
	finder, err := profile.NewFinder(live, opts.source)
	if err != nil {
		return err
	}
	p, err := finder.Find(ctx, opts.id)
	if err != nil {
		return err
	}
	out := opts.out
	if opts.format == "json" {
		return textout.JSONFor(out, p)
	}
	t := textout.Table(out, tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.Header("field", "value")
	for _, row := range [][]string{{"profile_id", p.ProfileID}, {"age", orUnknown(p.Age)}, {"gender", p.Gender},
		{"user_type", p.UserType}, {"primary_store_id", p.PrimaryStoreID}, {"primary_store_name", p.PrimaryStoreName},
		{"visits", orUnknown(p.Visits)}} {
		t.Append(row)
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "narrative:\n%s\n", p.Narrative)
	return err
}

// orUnknown is a number of a profile, or "unknown" where its cell could not be read as one.
func orUnknown(n *int) string {
	if n == nil {
		return "unknown"
	}
	return fmt.Sprint(*n)
}
