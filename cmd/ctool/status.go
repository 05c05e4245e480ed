package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

func newStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the database's schema version, build time, rows, and whether each source file changed",
		UsageText: "ctool status [--db PATH] [--input DIR] [--format text|json] [--check]",
		Description: "Each source file is fresh (unchanged since the ingest), stale (changed or new) or missing." +
			exitStatus("ok", fault.KindStale, fault.KindUsage, fault.KindNoDatabase, fault.KindIO),
		Flags: []cli.Flag{
			dbFlag(),
			inputFlag(),
			formatFlag("output", "text", "text", "json"),
			&cli.BoolFlag{Name: "check", Usage: "exit 1 unless every source is fresh and the build has this ctool's schema"},
		},
		Action: func(c *cli.Context) error {
			opts := &statusOptions{out: e.stdout, db: e.dbPath(c), input: c.String("input"), check: c.Bool("check")}
			var err error
			if opts.format, err = choiceValue(c, "format"); err != nil {
				return err
			}
			if err := noArgs(c); err != nil {
				return err
			}
			return missingInput(c, runStatus(c.Context, opts))
		},
	}
}

// statusOptions is a `ctool status` command line, checked.
type statusOptions struct {
	out       io.Writer
	format    string // text or json
	db, input string
	check     bool // fail (stale) unless every source is fresh
}

func runStatus(ctx context.Context, opts *statusOptions) error {
	st, err := changes.ReadStatus(ctx, opts.db, opts.input)
	if err != nil {
		return err
	}
	w := opts.out
	if opts.format == "json" {
		if err := textout.JSONFor(w, st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "database:  %s\nschema:    %d (latest %d%s)\nbuilt at:  %s\nprofiles:  %s", st.DB, st.SchemaVersion, st.LatestSchema,
			schemaNote(st), builtAt(st.BuiltAt, time.Now()), st.ProfilesFile)
		if !st.ProfilesFound {
			fmt.Fprint(w, " (missing)")
		}
		fmt.Fprintln(w)
		t := textout.Table(w)
		t.Header("dataset", "file", "rows", "state")
		for _, s := range st.Sources {
			t.Append(s.Dataset, escape.Visible(s.File), fmt.Sprint(s.Rows), s.State)
		}
		if err := t.Render(); err != nil {
			return err
		}
		if err := writeUnknown(w, st.Unknown); err != nil {
			return err
		}
	}
	if opts.check && !st.Current() {
		return answered{fault.Errorf(fault.KindStale, "the database is out of date").WithHint("ctool ingest")}
	}
	return nil
}

// schemaNote says what a schema version other than this ctool's means: a build made by an older ctool
// lacks what the help describes until it is built again; one made by a newer ctool may hold what this
// one does not know.
func schemaNote(st *changes.Status) string {
	switch {
	case st.SchemaVersion < st.LatestSchema:
		return ": built by an older ctool; ctool ingest rebuilds it"
	case st.SchemaVersion > st.LatestSchema:
		return ": built by a newer ctool"
	}
	return ""
}

// builtAt is the build time as operations staff read it: Tokyo's clock and how long ago (the JSON keeps
// the stored UTC timestamp).
func builtAt(stored string, now time.Time) string {
	t, err := time.Parse(time.RFC3339, stored)
	if err != nil {
		return escape.Visible(stored)
	}
	return t.In(schema.Tokyo).Format("2006-01-02 15:04 MST") + " (" + ago(now.Sub(t)) + ")"
}

// ago says a duration in the largest whole unit a person would use.
func ago(d time.Duration) string {
	plural := func(n int, unit string) string {
		return fmt.Sprintf("%d %s ago", n, textout.Plural(n, unit, unit+"s"))
	}
	switch {
	case d < 0:
		return "in the future: check this machine's clock"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	default:
		return plural(int(d/(24*time.Hour)), "day")
	}
}

// writeUnknown lists the cells the build could not type, by column, with the first lines they are on.
func writeUnknown(w io.Writer, unknown []changes.UnknownColumn) error {
	var cells int64
	for _, u := range unknown {
		cells += u.Cells
	}
	if cells == 0 {
		fmt.Fprintln(w, "unknown:   none (every cell was typed)")
		return nil
	}
	fmt.Fprintf(w, "unknown:   %d %s kept as written, typed values NULL (ctool validate shows why)\n", cells, textout.Plural(int(cells), "cell", "cells"))
	t := textout.Table(w)
	t.Header("dataset", "file", "column", "rule", "cells", "lines")
	for _, u := range unknown {
		lines := make([]string, len(u.Lines))
		for i, l := range u.Lines {
			lines[i] = fmt.Sprint(l)
		}
		more := ""
		if int64(len(u.Lines)) < u.Cells {
			more = ", …"
		}
		t.Append(u.Dataset, escape.Visible(u.File), u.Column, u.Rule, fmt.Sprint(u.Cells), strings.Join(lines, ", ")+more)
	}
	return t.Render()
}
