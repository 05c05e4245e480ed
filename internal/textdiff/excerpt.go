package textdiff

import "unicode/utf8"

// Part is a piece of one side of a change as shown: text, Changed where it is the part that changed,
// or a Gap where text is left out (Text is then empty).
type Part struct {
	Text    string
	Changed bool
	Gap     bool
}

// Sides are a change's old and new text as shown, each a list of parts; Cut when text was left out.
type Sides struct {
	Old, New []Part
	Cut      bool
}

// The shape of an excerpt. A text of more than Long characters on either side is shown as its changed
// pieces with Context characters of unchanged text around each; a changed piece of more than
// MaxChanged characters as its start and end; and no more than MaxChanges changed pieces.
const (
	Long       = 200
	Context    = 40
	MaxChanged = 160
	MaxChanges = 8
)

// Show is the change from old to new as shown to people: every piece of both texts, the changed ones
// marked, or for long texts the changed pieces with some context around them.
func Show(old, new string) Sides {
	edits := Diff(old, new)
	long := runesOver(old, Long) || runesOver(new, Long)
	var s Sides
	changes := 0
	for i, e := range edits {
		switch e.Op {
		case Equal:
			if !long {
				s.add(Part{Text: e.Text}, true, true)
				continue
			}
			for _, p := range around(e.Text, i > 0, i < len(edits)-1) {
				s.add(p, true, true)
			}
		default:
			if i == 0 || edits[i-1].Op == Equal {
				changes++ // a Delete and the Insert after it are one change
			}
			if long && changes > MaxChanges {
				s.add(Part{Gap: true}, true, true)
				return s
			}
			parts := []Part{{Text: e.Text, Changed: true}}
			if long {
				parts = clip(e.Text)
			}
			for _, p := range parts {
				s.add(p, e.Op == Delete, e.Op == Insert)
			}
		}
	}
	return s
}

func (s *Sides) add(p Part, old, new bool) {
	if p.Gap {
		s.Cut = true
	}
	if old {
		s.Old = append(s.Old, p)
	}
	if new {
		s.New = append(s.New, p)
	}
}

// around is an unchanged piece of a long text as shown: what is near a change, before says a change
// comes before it, after one after it.
func around(text string, before, after bool) []Part {
	gap := Part{Gap: true}
	switch {
	case before && after:
		if !runesOver(text, 2*Context+Context/4) {
			return []Part{{Text: text}}
		}
		return []Part{{Text: head(text, Context)}, gap, {Text: tail(text, Context)}}
	case after: // the start of the text
		if !runesOver(text, Context) {
			return []Part{{Text: text}}
		}
		return []Part{gap, {Text: tail(text, Context)}}
	case before: // the end of the text
		if !runesOver(text, Context) {
			return []Part{{Text: text}}
		}
		return []Part{{Text: head(text, Context)}, gap}
	}
	if !runesOver(text, Long) { // both texts the same
		return []Part{{Text: text}}
	}
	return []Part{{Text: head(text, Long)}, gap}
}

// clip is a changed piece of a long text as shown: whole, or its start and end.
func clip(text string) []Part {
	if !runesOver(text, MaxChanged) {
		return []Part{{Text: text, Changed: true}}
	}
	return []Part{{Text: head(text, MaxChanged*3/4), Changed: true}, {Gap: true, Changed: true}, {Text: tail(text, MaxChanged/4), Changed: true}}
}

// runesOver reports whether s has more than n characters, reading no further than needed.
func runesOver(s string, n int) bool {
	if len(s) <= n {
		return false
	}
	for range s {
		if n == 0 {
			return true
		}
		n--
	}
	return false
}

// head is the first n characters of s (an invalid byte is a character).
func head(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

// tail is the last n characters of s.
func tail(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return s[i:]
}
