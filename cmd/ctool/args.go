package main

import (
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// commandLine is a command line put in the order urfave/cli reads: the command path, then every flag,
// then "--" and the arguments. People and agents write flags anywhere (as with git and gh), and the
// library stops reading flags at the first argument.
type commandLine struct {
	args       []string
	positional []string     // the arguments that are neither the command path nor flags
	leaf       *cli.Command // the command the line runs; nil for the app itself
	format     string       // the --format the line asks for, or the command's default
	db         string       // the --db the line names, "" when it names none
	help       bool         // the line asks for help (-h, --help)
}

// flagToken is what a flag looks like: one or two dashes, a name, and maybe "=value". SQL that starts
// with a "-- comment" line is not a flag: a comment has a space or a line break after its dashes.
var flagToken = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9-]*(=.*)?$`)

// arrange moves the flags of a command line before its arguments. After "--" nothing is a flag.
func arrange(app *cli.App, argv []string) commandLine {
	if len(argv) == 0 {
		return commandLine{args: argv}
	}
	valued := valueFlags(app)
	line := commandLine{}
	path := []string{argv[0]}
	var flags, args []string
	commands := app.Commands
	format := ""
	rest := argv[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			args = append(args, rest[i+1:]...)
			i = len(rest)
		case flagToken.MatchString(a):
			flags = append(flags, a)
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && valued[name] && i+1 < len(rest) {
				i++
				value, hasValue = rest[i], true
				flags = append(flags, value)
			}
			switch {
			case name == "format" && hasValue:
				format = value
			case name == "db" && hasValue:
				line.db = value
			case name == "help" || name == "h":
				line.help = true
			}
		case len(args) == 0 && findCommand(commands, a) != nil:
			line.leaf = findCommand(commands, a)
			commands = line.leaf.Subcommands
			path = append(path, a)
		default:
			args = append(args, a)
		}
	}
	line.args = append(path, flags...)
	line.positional = args
	if len(args) > 0 {
		line.args = append(append(line.args, "--"), args...)
	}
	line.format = format
	if format == "" && line.leaf != nil {
		for _, f := range line.leaf.Flags {
			if sf, ok := f.(*choiceFlag); ok && sf.Name == "format" {
				line.format = sf.Value
			}
		}
	}
	return line
}

func findCommand(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// valueFlags names every flag, of any command, that takes a value: the flag after it is its value
// even when it looks like an argument. Every command gives a flag name the same meaning.
func valueFlags(app *cli.App) map[string]bool {
	valued := map[string]bool{}
	var walk func([]cli.Flag, []*cli.Command)
	walk = func(flags []cli.Flag, commands []*cli.Command) {
		for _, f := range flags {
			if _, isBool := f.(*cli.BoolFlag); isBool {
				continue
			}
			for _, n := range f.Names() {
				valued[n] = true
			}
		}
		for _, c := range commands {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
	return valued
}
