package hours

import (
	"strings"

	"github.com/azabudai/ctool/schema/internal/textscan"
)

// htok is one phrase or number of the text.
type htok struct {
	cue        hcue
	start, end int
	days       uint8
	every      bool
	min        int  // hTime: minutes
	hour       int  // hTime: the hour as written (for am/pm)
	strong     bool // hTime: written as a time ("10:00", "10時", "10am"), not a bare number
	mer        int8 // hTime: 1 am, 2 pm as written after it
}

// tokenizeHours finds the phrases and numbers of s, left to right, the longest phrase at each place;
// each place tries the trie's paths from it, at most the longest phrase's length, so the work is
// linear in s.
func tokenizeHours(s string) []htok {
	root := hoursTrie()
	var toks []htok
	for i := 0; i < len(s); {
		if isDigit(s[i]) {
			t, end := readNumber(s, i)
			if t.cue != 0 {
				toks = append(toks, t)
			}
			i = end
			continue
		}
		// "ー" is a dash only between digits: elsewhere it is a long vowel ("ディナー").
		if strings.HasPrefix(s[i:], "ー") && i > 0 && isDigit(s[i-1]) && i+3 < len(s) && isDigit(s[i+3]) {
			toks = append(toks, htok{cue: hTo, start: i, end: i + 3})
			i += 3
			continue
		}
		n, best, bestEnd := root, (*hoursNode)(nil), 0
		for j := i; j < len(s); j++ {
			if n = n.next[s[j]]; n == nil {
				break
			}
			if n.leaf && (!n.ascii || letterWordEnds(s, i, j+1)) {
				best, bestEnd = n, j+1
			}
		}
		if best == nil {
			i += textscan.RuneLen(s[i])
			continue
		}
		if best.ascii && bestEnd < len(s) && s[bestEnd] == 's' {
			bestEnd++ // "mondays", "holidays": the plural is the word's
		}
		if best.cue != hFiller {
			t := htok{cue: best.cue, start: i, end: bestEnd, days: best.days, every: best.every}
			if best.cue == hTime {
				t.min, t.hour, t.strong = best.time, best.time/60, true
			}
			toks = append(toks, t)
		}
		i = bestEnd
	}
	return toks
}

// readNumber reads the number at s[i]: a time ("10:00", "10時30分", "10時半", "10am", "10 p.m."), a
// bare hour ("11" of "11-21"), 24時間 or 24h (every hour), 365日 (every day), a date or an ordinal
// (hRefuse: the hours are of some days only), or nothing (a duration, a price, a floor). It returns
// the token (no cue for nothing) and where it stops.
func readNumber(s string, i int) (htok, int) {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	t := htok{start: i}
	digits, rest := s[i:j], s[j:]
	if len(digits) > 2 {
		switch {
		case digits == "365" && strings.HasPrefix(rest, "日"):
			t.cue, t.days, t.every = hDay, allWeek, true
			j += len("日")
		case hasAnyPrefix(rest, "年", "月", "日", "/"):
			t.cue = hRefuse
		}
		t.end = j
		return t, j
	}
	h := int(digits[0] - '0')
	if len(digits) == 2 {
		h = h*10 + int(digits[1]-'0')
	}
	switch {
	case len(rest) >= 3 && rest[0] == ':' && isDigit(rest[1]) && isDigit(rest[2]) && (len(rest) == 3 || !isDigit(rest[3])):
		t.cue, t.strong, t.hour = hTime, true, h
		t.min = h*60 + int(rest[1]-'0')*10 + int(rest[2]-'0')
		if rest[1] > '5' {
			t.cue = hRefuse // "10:75"
		}
		t.mer, j = meridiem(s, j+3)
	case strings.HasPrefix(rest, "時間"):
		j += len("時間")
		if h == 24 {
			t.cue = hAll24
		}
	case strings.HasPrefix(rest, "時"):
		j += len("時")
		t.cue, t.strong, t.hour, t.min = hTime, true, h, h*60
		if strings.HasPrefix(s[j:], "半") {
			t.min += 30
			j += len("半")
		} else if m, k, ok := minutes(s, j); ok {
			t.min += m
			j = k
		}
	case h == 24 && allDay(rest) > 0:
		t.cue = hAll24
		j += allDay(rest)
	case h == 7 && hasAnyPrefix(rest, " days a week", "days a week"):
		t.cue, t.days, t.every = hDay, allWeek, true
		j += strings.Index(rest, "week") + len("week")
	case h >= 1 && h <= 12 && len(rest) >= 2 && rest[0] == '/' && isDigit(rest[1]),
		hasAnyPrefix(rest, "年", "月", "日", "st", "nd", "rd", "th"):
		t.cue = hRefuse // a date ("12/31", "1月1日"), an ordinal ("2nd tuesday")
	default:
		if mer, k := meridiem(s, j); mer != 0 {
			t.cue, t.strong, t.hour, t.min, t.mer = hTime, true, h, h*60, mer
			j = k
		} else if !notAnHour(rest) {
			t.cue, t.hour, t.min = hTime, h, h*60 // a bare hour: read only in a range that days lead
		}
	}
	if t.cue == hTime && t.mer != 0 {
		if h == 0 || h > 12 {
			t.cue = hRefuse // "13pm"
		}
		t.min %= 12 * 60
		if t.mer == 2 {
			t.min += 12 * 60
		}
	}
	if t.cue == hTime && t.min > latestOpen {
		t.cue = hRefuse // "30:00"
	}
	t.end = j
	return t, j
}

// allDay is the length of the "h", " hours" or "/7" that makes a 24 every hour, or 0.
func allDay(rest string) int {
	for _, w := range []string{"h", "hr", "hrs", "hours", " h", " hr", " hrs", " hours"} {
		if hasWord(rest, w) {
			return len(w)
		}
	}
	if strings.HasPrefix(rest, "/7") {
		return len("/7")
	}
	return 0
}

// minutes reads "30分" at s[j].
func minutes(s string, j int) (int, int, bool) {
	k := j
	for k < len(s) && k-j < 2 && isDigit(s[k]) {
		k++
	}
	if k == j || !strings.HasPrefix(s[k:], "分") {
		return 0, j, false
	}
	m := 0
	for _, c := range s[j:k] {
		m = m*10 + int(c-'0')
	}
	if m > 59 {
		return 0, j, false
	}
	return m, k + len("分"), true
}

// meridiem reads "am", "a.m.", "pm" or "p.m." at s[j], after at most one space.
func meridiem(s string, j int) (int8, int) {
	k := j
	if k < len(s) && s[k] == ' ' {
		k++
	}
	for _, m := range []struct {
		w   string
		mer int8
	}{{"a.m.", 1}, {"a.m", 1}, {"am", 1}, {"p.m.", 2}, {"p.m", 2}, {"pm", 2}} {
		if hasWord(s[k:], m.w) {
			return m.mer, k + len(m.w)
		}
	}
	return 0, j
}

// hasWord reports whether s starts with w and no letter follows.
func hasWord(s, w string) bool {
	return strings.HasPrefix(s, w) && (len(s) == len(w) || !isLetter(s[len(w)]))
}

func hasAnyPrefix(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

// notAnHour reports whether what follows a number makes it no hour: a letter ("1f", "5 stars"), a
// unit ("2名", "500円", "30分"), a decimal point.
func notAnHour(rest string) bool {
	return rest != "" && (isLetter(rest[0]) || rest[0] == '.' && len(rest) > 1 && isDigit(rest[1]) ||
		hasAnyPrefix(rest, "名", "人", "円", "分", "階", "席", "号", "回", "歳", "才", "個", "品", "%", "件", "組", "食"))
}

// letterWordEnds reports whether s[i:j], a phrase of ASCII letters, is a whole word there: no letter
// before or after it (an "s" may follow). Digits may touch it: "l.o.22:30", "mon10:00".
func letterWordEnds(s string, i, j int) bool {
	if i > 0 && isLetter(s[i-1]) {
		return false
	}
	if j < len(s) && s[j] == 's' {
		j++
	}
	return j >= len(s) || !isLetter(s[j])
}
