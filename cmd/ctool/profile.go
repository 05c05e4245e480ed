package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
)

func newProfileCommand() *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "return exactly one user's profile (tool get_user_profile)",
		UsageText: "ctool profile [--db PATH] [--format json|table] PROFILE_ID",
		Description: schema.Help(schema.Profiles) +
			"\nThe profiles come from the file named by the environment variable NARRATIVE_DATA_FILE\n" +
			"(default narrative_data.csv), as ingested beside the main database." +
			exitStatusHelp("0  the profile was found", "1  no such profile", "2  usage error (no id, bad NARRATIVE_DATA_FILE)",
				"3  the database is missing or unusable (run 'ctool ingest')"),
		Flags: []cli.Flag{
			dbFlag(),
			formatFlag("output `FORMAT`: json or table", "json"),
		},
		Action: runProfile,
	}
}

func runProfile(c *cli.Context) error {
	format := c.String("format")
	if err := oneOf("format", format, "json", "table"); err != nil {
		return err
	}
	if err := noLateFlags(c); err != nil {
		return err
	}
	if c.NArg() > 1 {
		err := &query.ProfileError{Usage: true, Message: "profile_idは1つだけ指定してください（プロファイルの一覧・検索はできません）"}
		if format == "json" {
			query.WriteError(c.App.Writer, err)
			return quietExit(exitUsage)
		}
		return &exitError{code: exitUsage, msg: err.Message}
	}
	p, err := query.LookupProfile(c.Context, dbPath(c), os.Getenv("NARRATIVE_DATA_FILE"), strings.TrimSpace(c.Args().First()))
	if err != nil {
		var pe *query.ProfileError
		switch {
		case errors.As(err, &pe):
			code := exitFailed
			if pe.Usage {
				code = exitUsage
			}
			if format == "json" {
				query.WriteError(c.App.Writer, err)
				return quietExit(code)
			}
			return &exitError{code: code, msg: pe.Message}
		}
		return databaseError(err)
	}
	if format == "json" {
		return query.WriteJSON(c.App.Writer, p)
	}
	t := tablewriter.NewTable(c.App.Writer, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.Header("field", "value")
	for _, row := range [][]string{{"profile_id", p.ProfileID}, {"age", fmt.Sprint(p.Age)}, {"gender", p.Gender},
		{"user_type", p.UserType}, {"primary_store_id", p.PrimaryStoreID}, {"primary_store_name", p.PrimaryStoreName},
		{"visits", fmt.Sprint(p.Visits)}} {
		t.Append(row)
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "narrative:\n%s\n", p.Narrative)
	return err
}
