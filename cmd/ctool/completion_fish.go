package main

import (
	"fmt"
	"strings"
)

// fishQuote quotes s for fish, where a backslash escapes inside single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
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
