package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/urfave/cli/v2"
)

// Completion scripts are written from the app's own definitions, so they cannot drift: the commands (the
// datasets are query's subcommands), each command's flags, a choice flag's own list of values, and the
// list a command checks its first argument against (commandArgs). Hidden commands and flags are left
// out, and so is anything that would need the database: profile ids are never completed.

var completionShells = []string{"bash", "zsh", "fish"}

func newCompletionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		UsageText: "ctool completion <" + bar(completionShells) + ">",
		Description: "Completes commands, datasets, flags and their values (formats, files); never a profile id.\n" +
			"  bash: source <(ctool completion bash)        (or save it in /etc/bash_completion.d/ctool)\n" +
			"  zsh:  ctool completion zsh > \"${fpath[1]}/_ctool\"   (or source <(ctool completion zsh))\n" +
			"  fish: ctool completion fish > ~/.config/fish/completions/ctool.fish" +
			exitStatus("ok", fault.KindUsage),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("name the shell: ctool completion <bash|zsh|fish>").WithHint("ctool completion --help")
			}
			shell := c.Args().First()
			if !slices.Contains(completionShells, shell) {
				return unknownWord(fmt.Sprintf("unknown shell %q: use %s", shell, orList(completionShells)), shell, completionShells, "")
			}
			return runCompletion(&completionOptions{out: c.App.Writer, app: c.App, shell: shell})
		},
	}
}

// completionOptions is a `ctool completion` command line, checked.
type completionOptions struct {
	out   io.Writer
	app   *cli.App // the commands and flags to complete
	shell string   // one of completionShells
}

func runCompletion(opts *completionOptions) error {
	root := completionTree(opts.app)
	var script string
	switch opts.shell {
	case "bash":
		script = bashCompletion(root)
	case "zsh":
		script = zshCompletion(root)
	case "fish":
		script = fishCompletion(root)
	}
	_, err := fmt.Fprint(opts.out, script)
	return err
}

// compCommand is a command as the completion scripts see it.
type compCommand struct {
	path  string // the command words after ctool, "" for ctool itself
	name  string
	usage string
	subs  []*compCommand
	flags []compFlag
	args  []string // what the first argument can be
}

type compFlag struct {
	name    string // "format", or "h" for -h
	usage   string
	value   bool     // takes a value
	choices []string // the value's choices
	file    bool     // the value is a path
}

func (f compFlag) dashed() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

// all lists c and every command under it, depth first.
func (c *compCommand) all() []*compCommand {
	out := []*compCommand{c}
	for _, s := range c.subs {
		out = append(out, s.all()...)
	}
	return out
}

func completionTree(app *cli.App) *compCommand {
	root := &compCommand{name: app.Name, usage: app.Usage,
		flags: completionFlags(append([]cli.Flag{cli.VersionFlag}, app.Flags...))}
	for _, c := range app.Commands {
		if !c.Hidden {
			root.subs = append(root.subs, completionCommand(c, ""))
		}
	}
	for _, s := range root.subs {
		if s.name == "help" {
			for _, c := range root.subs {
				s.args = append(s.args, c.name)
			}
		}
	}
	return root
}

func completionCommand(c *cli.Command, parent string) *compCommand {
	path := strings.TrimSpace(parent + " " + c.Name)
	cc := &compCommand{path: path, name: c.Name, usage: c.Usage,
		flags: completionFlags(append(append([]cli.Flag(nil), c.Flags...), cli.HelpFlag)),
		args:  commandArgs(path)}
	for _, s := range c.Subcommands {
		if !s.Hidden && s.Name != "help" {
			cc.subs = append(cc.subs, completionCommand(s, path))
		}
	}
	// "ctool query <stores|events|products>" names its subcommands: complete them once.
	if len(cc.subs) > 0 {
		cc.args = nil
	}
	return cc
}

func completionFlags(flags []cli.Flag) []compFlag {
	var out []compFlag
	seen := map[string]bool{}
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		cf := compFlag{}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			cf.usage = d.GetUsage()
			cf.value = d.TakesValue()
		}
		switch s := f.(type) {
		case *cli.StringFlag:
			cf.file = s.TakesFile
		case *choiceFlag:
			cf.choices = s.choices
		}
		for _, n := range f.Names() {
			if seen[n] {
				continue
			}
			seen[n] = true
			g := cf
			g.name = n
			out = append(out, g)
		}
	}
	return out
}

// commandArgs is what the first argument of the command at path can be: the list the command itself
// checks it against and writes in its usage line.
func commandArgs(path string) []string {
	switch path {
	case "schema":
		return schemaTopics()
	case "completion":
		return completionShells
	}
	return nil
}

// valuedFlags lists, dashed and sorted, every flag of any command that takes a value: as arrange does,
// the word after one is its value, never a command.
func valuedFlags(root *compCommand) []string {
	set := map[string]bool{}
	for _, c := range root.all() {
		for _, f := range c.flags {
			if f.value {
				set[f.dashed()] = true
			}
		}
	}
	var out []string
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// shellQuote quotes s for sh, bash, zsh and fish alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func names(cs []*compCommand) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}
