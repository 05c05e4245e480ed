package main

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/urfave/cli/v2"
)

// newHelpCommand is "ctool help [COMMAND...]": the same text as "ctool COMMAND... --help", at any depth
// ("ctool help query stores"). The library's own help command knows one level only, and the app hides it.
func newHelpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the help of a command (ctool help query stores)",
		UsageText: "ctool help [COMMAND...]",
		Description: "The same text as ctool COMMAND... --help; without a command, the overview." +
			exitStatus("ok", fault.KindUsage),
		Action: func(c *cli.Context) error {
			path := []string{c.App.Name}
			commands := c.App.Commands
			for _, name := range c.Args().Slice() {
				cmd := findCommand(commands, name)
				if cmd == nil {
					msg := fmt.Sprintf("unknown command %q", name)
					if len(path) > 1 {
						msg = fmt.Sprintf("%q has no command %q", strings.Join(path, " "), name)
					}
					return unknownWord(msg, name, commandNames(commands), strings.Join(path, " ")+" --help")
				}
				path = append(path, cmd.Name)
				commands = cmd.Subcommands
			}
			return c.App.RunContext(c.Context, append(path, "--help"))
		},
	}
}

// newVersionCommand is "ctool version", as "ctool --version".
func newVersionCommand() *cli.Command {
	return &cli.Command{
		Name:        "version",
		Usage:       "print ctool's version",
		UsageText:   "ctool version",
		Description: "The same as ctool --version." + exitStatus("ok", fault.KindUsage),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			cli.ShowVersion(c)
			return nil
		},
	}
}
