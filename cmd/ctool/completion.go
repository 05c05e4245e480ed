package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/azabudai/ctool"
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
			exitStatus("ok", ctool.KindUsage),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("name the shell: ctool completion <bash|zsh|fish>").WithHint("ctool completion --help")
			}
			shell := c.Args().First()
			if !slices.Contains(completionShells, shell) {
				return usageError("unknown shell %q: use bash, zsh or fish", shell)
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
	// "ctool query <events|stores|products>" names its subcommands: complete them once.
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

// fishQuote quotes s for fish, where a backslash escapes inside single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func names(cs []*compCommand) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

// completionCases writes one shell case per command: its path, then what word(c) says of it.
func completionCases(b *strings.Builder, root *compCommand, word func(*compCommand) string) {
	for _, c := range root.all() {
		if w := word(c); w != "" {
			fmt.Fprintf(b, "        %s) echo %s ;;\n", shellQuote(c.path), shellQuote(w))
		}
	}
}

// completionData writes the shell functions (bash and zsh read them alike) that answer, for a command
// path: its subcommands, the choices of its first argument, its flags, and a flag's values ("@file" for
// a path).
func completionData(b *strings.Builder, root *compCommand) {
	b.WriteString("_ctool_commands() {\n    case \"$1\" in\n")
	completionCases(b, root, func(c *compCommand) string { return strings.Join(names(c.subs), " ") })
	b.WriteString("    esac\n}\n_ctool_args() {\n    case \"$1\" in\n")
	completionCases(b, root, func(c *compCommand) string { return strings.Join(c.args, " ") })
	b.WriteString("    esac\n}\n_ctool_flags() {\n    case \"$1\" in\n")
	completionCases(b, root, func(c *compCommand) string {
		var fs []string
		for _, f := range c.flags {
			fs = append(fs, f.dashed())
		}
		return strings.Join(fs, " ")
	})
	b.WriteString("    esac\n}\n_ctool_values() {\n    case \"$1 $2\" in\n")
	for _, c := range root.all() {
		for _, f := range c.flags {
			values := strings.Join(f.choices, " ")
			if f.file {
				values = "@file"
			}
			if values != "" {
				fmt.Fprintf(b, "        %s) echo %s ;;\n", shellQuote(c.path+" "+f.dashed()), shellQuote(values))
			}
		}
	}
	b.WriteString("    esac\n}\n")
	fmt.Fprintf(b, "_ctool_valued=%s\n", shellQuote(" "+strings.Join(valuedFlags(root), " ")+" "))
	// _ctool_walk sets cmdpath (the commands typed so far), nargs (arguments after them) and dashdash
	// (a "--" was typed) from the words before the cursor: the word after a flag that takes a value is that value.
	b.WriteString(`_ctool_walk() {
    cmdpath= nargs=0 dashdash=0
    local skip=0 w sub
    for w in "$@"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        if [ "$dashdash" = 1 ]; then nargs=$((nargs + 1)); continue; fi
        case "$w" in
            --) dashdash=1; continue ;;
            -*=*) continue ;;
            -*) case "$_ctool_valued" in *" $w "*) skip=1 ;; esac; continue ;;
        esac
        if [ "$nargs" = 0 ]; then
            for sub in $(_ctool_commands "$cmdpath"); do
                if [ "$sub" = "$w" ]; then
                    cmdpath="${cmdpath:+$cmdpath }$w"
                    continue 2
                fi
            done
        fi
        nargs=$((nargs + 1))
    done
}
`)
}

func bashCompletion(root *compCommand) string {
	var b strings.Builder
	b.WriteString("# bash completion for ctool, written by 'ctool completion bash'.\n" +
		"# Load it with: source <(ctool completion bash)\n")
	completionData(&b, root)
	b.WriteString(`_ctool() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" flag
    local cmdpath nargs dashdash
    _ctool_walk "${COMP_WORDS[@]:1:COMP_CWORD-1}"
    # bash splits --format=json at the "=".
    if [ "$cur" = "=" ]; then cur=; flag="$prev"
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then flag="${COMP_WORDS[COMP_CWORD-2]}"
    elif [ "$dashdash" = 0 ]; then
        case "$_ctool_valued" in *" $prev "*) flag="$prev" ;; esac
    fi
    COMPREPLY=()
    if [ -n "$flag" ] && [ "$dashdash" = 0 ]; then
        local values
        values=$(_ctool_values "$cmdpath" "$flag")
        if [ "$values" = "@file" ]; then
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
        elif [ -n "$values" ]; then
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
        fi
        return 0
    fi
    if [ "$dashdash" = 0 ] && [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(_ctool_flags "$cmdpath")" -- "$cur"))
    elif [ "$nargs" = 0 ]; then
        COMPREPLY=($(compgen -W "$(_ctool_commands "$cmdpath") $(_ctool_args "$cmdpath")" -- "$cur"))
    fi
    return 0
}
complete -F _ctool ctool
`)
	return b.String()
}

func zshCompletion(root *compCommand) string {
	var b strings.Builder
	b.WriteString("#compdef ctool\n# zsh completion for ctool, written by 'ctool completion zsh'.\n" +
		"# Save it as _ctool in a directory of $fpath, or load it with: source <(ctool completion zsh)\n")
	completionData(&b, root)
	b.WriteString("_ctool_describe() {\n    case \"$1\" in\n")
	for _, c := range root.all() {
		var items []string
		for _, s := range c.subs {
			items = append(items, shellQuote(s.name+":"+s.usage))
		}
		if len(items) > 0 {
			fmt.Fprintf(&b, "        %s) reply=(%s) ;;\n", shellQuote(c.path), strings.Join(items, " "))
		}
	}
	b.WriteString("        *) reply=() ;;\n    esac\n}\n")
	b.WriteString(`_ctool() {
    local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}" flag values
    local cmdpath nargs dashdash
    local -a reply
    _ctool_walk "${(@)words[2,CURRENT-1]}"
    if [[ "$dashdash" = 0 && "$cur" == --*=* ]]; then
        flag="${cur%%=*}"; compset -P '*='
    elif [[ "$dashdash" = 0 && "$_ctool_valued" == *" $prev "* ]]; then
        flag="$prev"
    fi
    if [[ -n "$flag" ]]; then
        values=$(_ctool_values "$cmdpath" "$flag")
        if [[ "$values" = "@file" ]]; then
            _files
        elif [[ -n "$values" ]]; then
            compadd -- ${=values}
        fi
        return
    fi
    if [[ "$dashdash" = 0 && "$cur" == -* ]]; then
        compadd -- ${=$(_ctool_flags "$cmdpath")}
    elif [[ "$nargs" = 0 ]]; then
        _ctool_describe "$cmdpath"
        (( ${#reply} )) && _describe -t commands 'command' reply
        values=$(_ctool_args "$cmdpath")
        [[ -n "$values" ]] && compadd -- ${=values}
    fi
    return 0
}
if [[ "$funcstack[1]" = "_ctool" ]]; then
    _ctool "$@"
else
    compdef _ctool ctool
fi
`)
	return b.String()
}

func fishCompletion(root *compCommand) string {
	var b strings.Builder
	b.WriteString("# fish completion for ctool, written by 'ctool completion fish'.\n" +
		"# Save it as ~/.config/fish/completions/ctool.fish\n")
	fmt.Fprintf(&b, "set -g __ctool_valued %s\n", strings.Join(valuedFlags(root), " "))
	b.WriteString("function __ctool_subcommands\n    switch $argv[1]\n")
	for _, c := range root.all() {
		if len(c.subs) > 0 {
			fmt.Fprintf(&b, "        case %s\n            echo %s\n", fishQuote(c.path), strings.Join(names(c.subs), " "))
		}
	}
	b.WriteString("    end\nend\n")
	// __ctool_path prints the commands typed so far and how many arguments follow them.
	b.WriteString(`function __ctool_path
    set -l cmdpath
    set -l nargs 0
    set -l skip 0
    set -l dashdash 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if test $dashdash = 1
            set nargs (math $nargs + 1)
            continue
        end
        switch $w
            case '--'
                set dashdash 1
                continue
            case '-*=*'
                continue
            case '-*'
                contains -- $w $__ctool_valued; and set skip 1
                continue
        end
        if test $nargs = 0; and contains -- $w (string split ' ' -- (__ctool_subcommands "$cmdpath"))
            set -a cmdpath $w
            continue
        end
        set nargs (math $nargs + 1)
    end
    echo "$cmdpath"
    echo $nargs
end
# __ctool_in PATH: the commands typed so far are PATH; __ctool_at PATH: and no argument follows them yet.
function __ctool_in
    set -l state (__ctool_path)
    test "$state[1]" = "$argv[1]"
end
function __ctool_at
    set -l state (__ctool_path)
    test "$state[1]" = "$argv[1]"; and test "$state[2]" = 0
end
complete -c ctool -f
`)
	for _, c := range root.all() {
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c ctool -n %s -a %s -d %s\n", fishQuote("__ctool_at "+shellQuote(c.path)), fishQuote(s.name), fishQuote(s.usage))
		}
		if len(c.args) > 0 {
			fmt.Fprintf(&b, "complete -c ctool -n %s -a %s\n", fishQuote("__ctool_at "+shellQuote(c.path)), fishQuote(strings.Join(c.args, " ")))
		}
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c ctool -n %s", fishQuote("__ctool_in "+shellQuote(c.path)))
			if len(f.name) == 1 {
				line += " -s " + f.name
			} else {
				line += " -l " + f.name
			}
			switch {
			case f.file:
				line += " -r -F"
			case len(f.choices) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.choices, " "))
			case f.value:
				line += " -x"
			}
			fmt.Fprintf(&b, "%s -d %s\n", line, fishQuote(plainUsage(f.usage)))
		}
	}
	return b.String()
}

// plainUsage is a flag's usage without the backticks that name its value in help.
func plainUsage(s string) string {
	return strings.ReplaceAll(s, "`", "")
}
