package main

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/urfave/cli/v2"
)

func newManCommand() *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "print ctool's manual page (troff), made from the same definitions as --help",
		UsageText: "ctool man",
		Description: "Read it with: ctool man | man -l -   (make man writes bin/ctool.1)" +
			exitStatus("ok", fault.KindUsage),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			page, err := manPage(c.App)
			if err != nil {
				return fault.Errorf(fault.KindInternal, "write the manual page: %w", err)
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}

// manPage is the app's manual page, section 1 (user commands); hidden commands are left out.
func manPage(app *cli.App) (string, error) {
	// The page is written from markdown, where only lines indented by four spaces after a blank line
	// keep their layout: the exit status table.
	page := *app
	page.Description = strings.ReplaceAll(strings.ReplaceAll(app.Description, "EXIT STATUS:\n", "EXIT STATUS:\n\n"), "\n   ", "\n    ")
	return page.ToManWithSection(1)
}
