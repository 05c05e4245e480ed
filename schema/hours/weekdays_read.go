package hours

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// dayList is a run of day tokens joined by separators and ranges: toks[first:last+1].
type dayList struct {
	first, last int
	days        days
	names       int  // its day and holiday tokens
	plural      bool // one of them an English plural
	weekly      bool // one of them "毎週末"
	lone        bool // one token, a lone character or abbreviation
}

type weekdayReading struct {
	open, closed days
	noClose      bool
}

// readWeekdays reads one folded text.
func readWeekdays(s string) weekdayReading {
	toks := tokenizeWeekdays(s)
	var r weekdayReading
	lists := dayLists(s, toks)
	remark := remarks(toks)
	other := false // a dayOther earlier in this sentence
	li := 0
	for i := 0; i < len(toks); i++ {
		switch toks[i].cue {
		case dayBreak:
			other = false
		case dayOther:
			other = true
		case dayNoClose:
			r.noClose = true
		case dayEvery:
			if !other && !remark[i] {
				r.open |= allDays
			}
		}
		if li < len(lists) && lists[li].first == i {
			l := lists[li]
			li++
			if !other && !remark[l.first] && !remark[l.last] && !dateWeekday(s, toks, l) {
				o, c := readList(s, toks, l)
				r.open, r.closed = r.open|o, r.closed|c
			}
			i = l.last
		}
	}
	return r
}

// readList says whether list l is of days the event is held on, or closed, from its neighbours.
func readList(s string, toks []dayTok, l dayList) (open, closed days) {
	var before, after dayCue
	if p := l.first - 1; p >= 0 && weekdayGapOK(s[toks[p].end:toks[l.first].start]) {
		before = toks[p].cue
		if before == dayWeekly && p > 0 && toks[p-1].cue == dayClosed && weekdayGapOK(s[toks[p-1].end:toks[p].start]) {
			before = dayClosed // "休館日：毎週月曜"
		}
	}
	if n := l.last + 1; n < len(toks) && weekdayGapOK(s[toks[l.last].end:toks[n].start]) {
		after = toks[n].cue
	} else if k := afterAside(s, toks, n); k < len(toks) && toks[k].cue == dayClosed {
		after = dayClosed // "月曜日（祝日の場合は翌日）休館"
	}
	// A lone kanji counts after "毎週" or a closing word, or before one in brackets: "(月休)". "1月休館"
	// and "当日のみ" are not days. A lone abbreviation counts with any cue: "sat only".
	kanji := l.lone && s[toks[l.first].start] >= utf8.RuneSelf
	bracketed := toks[l.first].start > 0 && s[toks[l.first].start-1] == '('
	switch {
	case before == dayClosed || after == dayClosed:
		if kanji && before != dayClosed && !bracketed {
			return 0, 0
		}
		return 0, l.days
	case before == dayWeekly || l.weekly:
		return l.days, 0
	case kanji:
		return 0, 0
	case before == dayOpen || after == dayOpen:
		return l.days, 0
	case l.lone:
		return 0, 0
	case timeFollows(s[toks[l.last].end:]), l.plural && !isSubject(s[toks[l.last].end:]):
		return l.days, 0
	}
	return 0, 0
}

// weekdayGapOK reports whether what lies between a list and a cue lets the cue read it: a space, a colon, a
// label's closing bracket or a particle ("土日に開催", "休館日は月曜", "【休館日】月曜", "月曜日が休館日").
func weekdayGapOK(gap string) bool {
	if len(gap) > 6 {
		return false
	}
	for _, r := range gap {
		if !strings.ContainsRune(" :]】はにがを", r) {
			return false
		}
	}
	return true
}

// afterAside is the index of the first token after a short bracketed aside right after toks[n-1], with
// at most a particle between: "月曜日（祝日の場合は翌日）は休館". Otherwise it is len(toks).
func afterAside(s string, toks []dayTok, n int) int {
	if n == 0 || n >= len(toks) {
		return len(toks)
	}
	open := toks[n-1].end
	end := strings.IndexByte(s[open:min(len(s), open+64)], ')')
	if !strings.HasPrefix(s[open:], "(") || end < 0 || strings.Contains(s[open+1:open+end], "(") {
		return len(toks)
	}
	end += open + 1
	for n < len(toks) && toks[n].start < end {
		n++
	}
	if n < len(toks) && weekdayGapOK(s[end:toks[n].start]) {
		return n
	}
	return len(toks)
}

// isSubject reports whether the English plural days before s are what a sentence is about, not when
// something is held: "Mondays are tough", "Wednesdays are half-price days".
func isSubject(s string) bool {
	for _, verb := range []string{" are ", " is ", " can ", " tend ", " get "} {
		if strings.HasPrefix(s, verb) {
			return true
		}
	}
	return false
}

// timeFollows reports whether s starts with a time of day, after a space, comma, colon or は: "10:00",
// "10時", "10am".
func timeFollows(s string) bool {
	s = strings.TrimLeft(s, " :,")
	s = strings.TrimPrefix(s, "は")
	s = strings.TrimLeft(s, " ")
	n := 0
	for n < len(s) && n < 2 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return false
	}
	rest := s[n:]
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "時") || strings.HasPrefix(rest, "am") ||
		strings.HasPrefix(rest, "pm") || strings.HasPrefix(rest, " am") || strings.HasPrefix(rest, " pm")
}

// remarks says of each token whether the part of a sentence it is in has a remark: the tokens between
// a break, or a separator, and the next. A list's own separators end its parts, so its first and last
// tokens tell for the parts before and after it.
func remarks(toks []dayTok) []bool {
	out := make([]bool, len(toks))
	for start := 0; start < len(toks); {
		end, has := start, false
		for ; end < len(toks) && !partEnds(toks[end]); end++ {
			has = has || toks[end].cue == dayRemark
		}
		for i := start; i < end; i++ {
			out[i] = has
		}
		start = end + 1
	}
	return out
}

func partEnds(t dayTok) bool { return t.cue == dayBreak || t.cue == daySep }

// dateWeekday reports a list in brackets right after a number or "日": the weekday of a date, "(土)".
func dateWeekday(s string, toks []dayTok, l dayList) bool {
	start, end := toks[l.first].start, toks[l.last].end
	if start == 0 || s[start-1] != '(' || end >= len(s) || s[end] != ')' {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:start-1])
	return unicode.IsDigit(r) || r == '日' || strings.ContainsRune("〇一二三四五六七八九十", r)
}

// dayLists finds the runs of days in toks: day and holiday tokens joined, with nothing but a space
// between, by separators and ranges, at least one of them a day. A lone kanji character after a
// number is a date's month or day ("1月", "10日"), not a weekday.
func dayLists(s string, toks []dayTok) []dayList {
	isName := func(i int) bool {
		t := toks[i]
		if t.cue == dayHoliday {
			return true
		}
		if t.cue != dayName {
			return false
		}
		if t.form == formSingle && s[t.start] >= utf8.RuneSelf && t.start > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:t.start])
			if unicode.IsDigit(r) || strings.ContainsRune("〇一二三四五六七八九十", r) {
				return false
			}
		}
		return true
	}
	joined := func(a, b int) bool { return strings.Trim(s[toks[a].end:toks[b].start], " ") == "" }
	var out []dayList
	for i := 0; i < len(toks); i++ {
		if !isName(i) {
			continue
		}
		l := dayList{first: i, last: i}
		addDay := func(t dayTok) {
			l.names++
			l.days |= t.days
			l.plural = l.plural || t.form == formPlural
			l.weekly = l.weekly || t.form == formWeekly
		}
		addDay(toks[i])
		prev := lastDay(toks[i].days) // the last day named, where a range starts
		for {
			n := l.last + 1
			if n < len(toks) && joined(l.last, n) && isName(n) { // written together: "土日", "月火水"
				l.last = n
			} else if n+1 < len(toks) && (toks[n].cue == daySep || toks[n].cue == dayRange) &&
				joined(l.last, n) && joined(n, n+1) && isName(n+1) {
				if toks[n].cue == dayRange && prev >= 0 && toks[n+1].cue == dayName {
					l.days |= dayRangeOf(prev, firstDay(toks[n+1].days))
				}
				l.last = n + 1
			} else {
				break
			}
			addDay(toks[l.last])
			if toks[l.last].cue == dayName {
				prev = lastDay(toks[l.last].days)
			}
		}
		l.lone = l.names == 1 && toks[i].form == formSingle
		if l.days != 0 {
			out = append(out, l)
		}
		i = l.last
	}
	return out
}

// dayRangeOf is the days from a to b, through Sunday if b comes first: "金〜月".
func dayRangeOf(a, b int) days {
	var d days
	for i := a; ; i = (i + 1) % 7 {
		d |= 1 << i
		if i == b {
			return d
		}
	}
}

func firstDay(d days) int {
	for i := 0; i < 7; i++ {
		if d&(1<<i) != 0 {
			return i
		}
	}
	return -1
}

func lastDay(d days) int {
	for i := 6; i >= 0; i-- {
		if d&(1<<i) != 0 {
			return i
		}
	}
	return -1
}
