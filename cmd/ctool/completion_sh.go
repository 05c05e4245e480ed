package main

import (
	"fmt"
	"strings"
)

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
