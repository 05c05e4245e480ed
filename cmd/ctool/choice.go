package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// choiceFlag is a string flag whose value is one of a fixed list. The list is said once: it writes
// the flag's usage ("output `FORMAT`: text or json"), checks the value (choiceValue) and gives
// completion the values to offer.
type choiceFlag struct {
	cli.StringFlag
	choices []string
	aliases map[string]string // an old name of a choice → the choice; accepted, never offered
}

// newChoiceFlag is --name with usage "what `VALUE`: a, b or c" and value (one of choices) by default.
func newChoiceFlag(name, what, placeholder, value string, choices []string) *choiceFlag {
	return &choiceFlag{
		StringFlag: cli.StringFlag{Name: name, Value: value, Usage: what + " `" + placeholder + "`: " + orList(choices)},
		choices:    choices,
	}
}

// formatFlag is --format, choosing among formats; value is the default. The human format is called
// text by every command; table, its old name in query and profile, is accepted as an alias.
func formatFlag(what, value string, formats ...string) *choiceFlag {
	f := newChoiceFlag("format", what, "FORMAT", value, formats)
	if slices.Contains(formats, "text") {
		f.aliases = map[string]string{"table": "text"}
	}
	return f
}

// choiceValue is the value of the command's choice flag name, checked against the flag's own list; an
// alias gives the choice it stands for.
func choiceValue(c *cli.Context, name string) (string, error) {
	v := c.String(name)
	for _, f := range c.Command.Flags {
		cf, ok := f.(*choiceFlag)
		if !ok || cf.Name != name || slices.Contains(cf.choices, v) {
			continue
		}
		if to, ok := cf.aliases[v]; ok {
			return to, nil
		}
		return "", unknownWord(fmt.Sprintf("--%s must be %s, not %q", name, orList(cf.choices), v), v, cf.choices, c.Command.HelpName+" --help")
	}
	return v, nil
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// bar joins words as a usage line lists alternatives: "a|b|c".
func bar(words []string) string { return strings.Join(words, "|") }
