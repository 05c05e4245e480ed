package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
)

// "Did you mean": a misspelt command, dataset or format is answered with the most similar names, ranked
// and cut off as git's help.c ranks them (help_unknown_cmd), and, when one name is the most similar,
// with the whole command line corrected as the hint. ctool prints the line; it never runs it.

// similarityFloor is git's SIMILARITY_FLOOR: a candidate whose score is this or more is not similar.
const similarityFloor = 7

// similar returns the candidates most similar to typed, all those of the best score, sorted; none when even the best is not similar enough. A candidate that typed is a prefix of scores 0
// (best), unless every candidate does, which is too ambiguous to suggest anything; any other scores
// its edit distance from typed, plus 1.
func similar(typed string, candidates []string) []string {
	if typed == "" || len(candidates) == 0 {
		return nil
	}
	scores := make([]int, len(candidates))
	prefixes := 0
	for i, c := range candidates {
		if strings.HasPrefix(c, typed) {
			prefixes++
			continue
		}
		scores[i] = editDistance(typed, c) + 1
	}
	if prefixes == len(candidates) {
		return nil
	}
	best := slices.Min(scores)
	if best >= similarityFloor {
		return nil
	}
	var out []string
	for i, c := range candidates {
		if scores[i] == best && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// editDistance is git's levenshtein(typed, candidate, 0, 2, 1, 3): the optimal string alignment
// distance, by characters, where swapping two neighbours costs 0, a substitution 2, a character the
// candidate has and typed lacks 1, and one typed has and the candidate lacks 3. A short word typed
// with a letter missing or two letters swapped is close; a long word that merely contains a candidate
// is not.
func editDistance(typed, candidate string) int {
	const swap, substitution, addition, deletion = 0, 2, 1, 3
	a, b := []rune(typed), []rune(candidate)
	row0 := make([]int, len(b)+1)
	row1 := make([]int, len(b)+1)
	row2 := make([]int, len(b)+1)
	for j := range row1 {
		row1[j] = j * addition
	}
	for i := range a {
		row2[0] = (i + 1) * deletion
		for j := range b {
			cost := 0
			if a[i] != b[j] {
				cost = substitution
			}
			row2[j+1] = row1[j] + cost
			if i > 0 && j > 0 && a[i-1] == b[j] && a[i] == b[j-1] && row2[j+1] > row0[j-1]+swap {
				row2[j+1] = row0[j-1] + swap
			}
			row2[j+1] = min(row2[j+1], row1[j+1]+deletion, row2[j]+addition)
		}
		row0, row1, row2 = row1, row2, row0
	}
	return row1[len(b)]
}

// misspelt is a usage error about one word of the command line. When exactly one name is the most
// similar, runWith turns its hint into the command line with that word corrected (correctedLine).
type misspelt struct {
	err  *fault.Error
	typo string
	fix  string // the one most similar name, or ""
	flag bool   // typo and fix are flag names, written with dashes, maybe with "=value"
}

func (m *misspelt) Error() string { return m.err.Error() }
func (m *misspelt) Unwrap() error { return m.err }

// unknownWord is the usage error msg about typed, which is none of names: msg, then "; did you mean
// "name"?" or the most similar names, if any is similar enough. hint, when not "", is the hint unless one
// name is the most similar: then it is the command line corrected.
func unknownWord(msg, typed string, names []string, hint string) *misspelt {
	best := similar(typed, names)
	switch len(best) {
	case 0:
	case 1:
		msg += fmt.Sprintf("; did you mean %q?", best[0])
	default:
		quoted := make([]string, len(best))
		for i, b := range best {
			quoted[i] = fmt.Sprintf("%q", b)
		}
		msg += "; the most similar are " + strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
	}
	m := &misspelt{err: usageError("%s", msg), typo: typed}
	if hint != "" {
		m.err = m.err.WithHint(hint)
	}
	if len(best) == 1 {
		m.fix = best[0]
	}
	return m
}

// unknownFlag is onUsageError's answer to a flag the command does not have (the library's "flag
// provided but not defined: -name"), with the most similar of the command's flags.
func unknownFlag(msg, name string, flags []string, hint string) *misspelt {
	m := unknownWord(msg, name, flags, hint)
	m.flag = true
	if m.fix != "" {
		// The message names the flag as it is written.
		m.err.Message = strings.Replace(m.err.Message, fmt.Sprintf("did you mean %q", m.fix), fmt.Sprintf("did you mean %q", "--"+m.fix), 1)
	}
	return m
}

// correctedLine is argv with its first word that is m's typo replaced by m's fix, as a shell command
// line: a flag's name keeps its dashes and its "=value".
func correctedLine(argv []string, m *misspelt) string {
	words := make([]string, len(argv))
	done := false
	for i, a := range argv {
		switch {
		case i == 0:
			a = "ctool"
		case done:
		case m.flag && strings.HasPrefix(a, "-"):
			dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
			name, value, hasValue := strings.Cut(a[len(dashes):], "=")
			if name == m.typo {
				a, done = dashes+m.fix, true
				if hasValue {
					a += "=" + value
				}
			}
		case !m.flag && a == m.typo:
			a, done = m.fix, true
		case !m.flag && strings.HasPrefix(a, "-") && strings.HasSuffix(a, "="+m.typo):
			a, done = strings.TrimSuffix(a, m.typo)+m.fix, true
		}
		words[i] = quoteWord(a)
	}
	return strings.Join(words, " ")
}

// plainWord is a word the shell reads as itself.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// quoteWord quotes a word for a POSIX shell when it needs it.
func quoteWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return shellQuote(s)
}
