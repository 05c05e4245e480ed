package main

import (
	"fmt"

	"github.com/azabudai/ctool"
	"github.com/azabudai/ctool/escape"
	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/textout"
	"github.com/urfave/cli/v2"
)

func newStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the database's schema version, build time, rows, and whether each source file changed",
		UsageText: "ctool status [--db PATH] [--input DIR] [--format text|json] [--check]",
		Description: "Each source file is fresh (unchanged since the ingest), stale (changed or new) or missing." +
			exitStatus("ok", ctool.KindStale, ctool.KindUsage, ctool.KindNoDatabase, ctool.KindIO),
		Flags: []cli.Flag{
			dbFlag(),
			inputFlag(),
			formatFlag("output `FORMAT`: text or json", "text"),
			&cli.BoolFlag{Name: "check", Usage: "exit 1 unless every source is fresh"},
		},
		Action: e.runStatus,
	}
}

func (e *env) runStatus(c *cli.Context) error {
	if err := oneOf("format", c.String("format"), "text", "json"); err != nil {
		return err
	}
	if err := noArgs(c); err != nil {
		return err
	}
	st, err := ingest.ReadStatus(c.Context, e.dbPath(c), c.String("input"))
	if err != nil {
		return err
	}
	w := e.stdout
	if c.String("format") == "json" {
		if err := textout.JSON(w, st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "database:  %s\nschema:    %d (latest %d)\nbuilt at:  %s\nprofiles:  %s", st.DB, st.SchemaVersion, st.LatestSchema, st.BuiltAt, st.ProfilesFile)
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
	}
	if c.Bool("check") && !st.Current() {
		return answered{ctool.Errorf(ctool.KindStale, "the database is out of date").WithHint("ctool ingest")}
	}
	return nil
}
