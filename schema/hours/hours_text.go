package hours

import "strings"

// readHoursText is the text rule. Its reading, over the phrases and numbers of the folded text:
//
//   - Days: a day word, 平日 (Monday to Friday), 土日, 祝 (HolidayDay), 毎日 and daily (Monday to
//     Sunday: holidays keep their weekday's hours unless 祝 is named), joined into one set by adjacency
//     ("土日祝"), lists ("月・水・金", "Sat & Sun") and ranges ("月〜金", "Mon-Fri", "金〜月").
//   - Times: "10:00", "10時", "10時半", "10:00pm", "正午", and a bare hour ("11" of "daily 11-21") only
//     in a range that days lead. 翌 makes a time the next day's: "翌2時" is 26:00. A range is two times
//     joined by 〜, -, から or to, or an open and a close named so ("OPEN 11:00 / CLOSE 22:00").
//   - Days then ranges: those days' hours; several ranges are several spans. Ranges no days lead are
//     every day's, a default: named days' ranges take the place of those they overlap ("10:00-20:00 /
//     土日祝 10:00-19:00"), and keep the others ("毎日 18:00-24:00 / 金 24:00-26:00"). Named days
//     may change one end only ("（日曜は18:00まで）", "（土日 9:00〜）"). Days right after ranges no
//     days led, with nothing else said of them, take those ranges ("11:00-21:00 daily",
//     "11:30〜14:00（土日のみ）"). Days opened in brackets end with them.
//   - 定休日, 休み, closed with days before or after it: those days are closed. The default leaves
//     them out; named hours on them contradict, and the cell is not read.
//   - A range next to 休憩 or break is taken out of the range that holds it.
//   - L.O. and ラストオーダー: the time next to them is ignored (a last order is no close).
//   - Not read: a phrase of hRefuse (不定休, 売り切れ次第, 季節, 場合, a date), days with nothing after
//     them, a time alone, ranges that overlap on a day, or no range at all.
func readHoursText(cell string) (Hours, bool) {
	s := foldHours(cell)
	r := hoursReader{s: s, toks: tokenizeHours(s), cur: -1, base: -1, rangeEnd: -1, bracketOpen: -1}
	if !r.read() {
		return Hours{}, false
	}
	return r.resolve()
}

// hgroup is a set of days and the ranges written for them.
type hgroup struct {
	days    uint8
	every   bool // a default: 毎日, or no days
	dayless bool // made by a range no days led: days after it may claim it
	added   bool // claimed so: its ranges add to the days' others ("ランチ 11:30-14:00（土日のみ）")
	spans   []Span
}

type hoursReader struct {
	s        string
	toks     []htok
	groups   []hgroup
	cur      int   // the group ranges now join, or -1
	base     int   // the last every-day group, one end of whose single range days may change; or -1
	rangeEnd int   // the token after the last range, while nothing but separators has followed, or -1
	closed   uint8 // days stated closed
	lastOrd  bool  // an L.O. waits for its time

	// A group opened inside brackets ends with them: "11:30-14:00（土日祝は〜15:00）17:30-22:00".
	inBracket   bool
	outerCur    int // cur when the bracket opened
	bracketOpen int // the group opened inside it, or -1
}

func (r *hoursReader) at(i int) hcue {
	if i < 0 || i >= len(r.toks) {
		return 0
	}
	return r.toks[i].cue
}

func (r *hoursReader) text(i int) string {
	if i < 0 || i >= len(r.toks) {
		return ""
	}
	return r.s[r.toks[i].start:r.toks[i].end]
}

// bracket is 1 for an opening bracket at toks[i], -1 for a closing one, else 0.
func (r *hoursReader) bracket(i int) int {
	switch r.text(i) {
	case "(", "[", "【", "「", "〈", "<":
		return 1
	case ")", "]", "】", "」", "〉", ">":
		return -1
	}
	return 0
}

// passSep notes the separator at toks[i] as read: a closing bracket ends the group opened inside it.
func (r *hoursReader) passSep(i int) {
	switch r.bracket(i) {
	case 1:
		r.inBracket, r.outerCur, r.bracketOpen = true, r.cur, -1
	case -1:
		if r.inBracket && r.bracketOpen >= 0 && r.cur == r.bracketOpen {
			r.cur = r.outerCur
		}
		r.inBracket = false
	}
}

// read goes over the tokens once; false means the cell is not read.
func (r *hoursReader) read() bool {
	for i := 0; i < len(r.toks); {
		var ok bool
		switch r.toks[i].cue {
		case hRefuse:
			return false
		case hDay:
			i, ok = r.days(i)
		case hClosed:
			i, ok = r.closedDays(i)
		case hTime, hAll24:
			i, ok = r.timeRange(i)
		case hNext, hAM, hPM:
			if r.startsTime(i) {
				i, ok = r.timeRange(i)
				break
			}
			// 午前 or 夜 apart from a time says nothing ("夜の部"); 翌 apart from one is a day ("翌日休み").
			for ok = true; r.at(i) == hNext || r.at(i) == hAM || r.at(i) == hPM; i++ {
				ok = ok && r.at(i) != hNext
			}
		case hTo, hCloseWord:
			// A close alone: after days that change one end of the every-day range ("日曜 〜18:00",
			// "Sun close 18:00"), else not read ("〜20:00").
			if r.startsTime(i + 1) {
				i, ok = r.oneEnd(i+1, true)
				break
			}
			ok = true
			i++
		case hLastOrder:
			r.lastOrd, ok = true, true
			i++
		case hSep:
			r.lastOrd, ok = false, true
			r.passSep(i)
			i++
		default: // hJoin, hComma, hNone, hUntil, hOpenWord, hBreak not next to what they qualify
			ok = true
			i++
		}
		if !ok {
			return false
		}
	}
	return true
}

// dayExpr reads the set of days starting at toks[i] and returns it and where it ends.
func (r *hoursReader) dayExpr(i int) (days uint8, every bool, end int, ok bool) {
	for {
		t := r.toks[i]
		days |= t.days
		every = every || t.every
		i++
		if r.at(i) == hTo && r.at(i+1) == hDay { // "月〜金", "Mon-Fri", "金〜月"
			a, b := single(t), single(r.toks[i+1])
			if a < 0 || b < 0 {
				return 0, false, 0, false // "土〜祝", "毎日-金"
			}
			for d := a; ; d = (d + 1) % 7 {
				days |= 1 << d
				if d == b {
					break
				}
			}
			i += 2
		}
		switch {
		case r.at(i) == hDay: // "土日祝", "sat sun"
		case (r.at(i) == hJoin || r.at(i) == hComma || r.text(i) == "/") && r.at(i+1) == hDay: // "月・水・金", "Sat/Sun"
			i++
		default:
			return days, every, i, true
		}
	}
}

// single is the weekday a day token names alone, or -1.
func single(t htok) int {
	for d := 0; d < 7 && !t.every; d++ {
		if t.days == 1<<d {
			return d
		}
	}
	return -1
}

// Gaps: what may stand between days and a 定休日 ("日曜は定休日", "closed on mondays"), and between
// days that claim the range before them and what follows ("（土日のみ）").
var (
	closedGap = []string{" ", ":", "は", "が", "を", "も", "on", "are", "is", "every", "毎週", "="}
	claimGap  = []string{" ", ":", "のみ", "only"}
)

// gapOK reports whether gap is made of words only.
func gapOK(gap string, words []string) bool {
	for gap != "" {
		n := 0
		for _, w := range words {
			if strings.HasPrefix(gap, w) {
				n = len(w)
				break
			}
		}
		if n == 0 {
			return false
		}
		gap = gap[n:]
	}
	return true
}

// days reads a set of days at toks[i] and what follows it: 定休日 (the days are closed), ranges (a new
// group), or nothing, when the days claim the ranges before them.
func (r *hoursReader) days(i int) (int, bool) {
	start := i
	days, every, j, ok := r.dayExpr(i)
	if !ok {
		return 0, false
	}
	// "日曜定休", "日曜・祝日は定休日", "sunday: closed", "Sun - closed", "【日・祝】休業"; not
	// "Mon-Sat, closed Sun".
	k := j
	if (r.at(k) == hTo || r.bracket(k) < 0) && r.at(k+1) == hClosed {
		k++
	}
	if r.at(k) == hClosed && gapOK(r.s[r.toks[k-1].end:r.toks[k].start], closedGap) {
		if every {
			return 0, false // "毎日休み"
		}
		for x := j; x < k; x++ {
			r.passSep(x)
		}
		r.closed |= days
		r.rangeEnd = -1
		return k + 1, true
	}
	claim := r.claims(start, j)
	// Separators may stand between days and their ranges ("(月〜金) 10:00-20:00"), unless the days
	// can claim the ranges before them: "11:30〜14:00（土日のみ）17:30〜22:00".
	k = j
	for r.at(k) == hSep || r.at(k) == hComma || r.at(k) == hJoin {
		k++
	}
	startsRange := r.startsTime(k) || r.at(k) == hAll24 ||
		(r.at(k) == hTo || r.at(k) == hOpenWord || r.at(k) == hCloseWord) && r.startsTime(k+1)
	if startsRange && !(claim && k > j) {
		for x := j; x < k; x++ {
			r.passSep(x)
		}
		r.groups = append(r.groups, hgroup{days: days, every: every})
		r.cur, r.rangeEnd, r.lastOrd = len(r.groups)-1, -1, false
		if every {
			r.base = r.cur
		}
		if r.inBracket {
			r.bracketOpen = r.cur
		}
		return k, true
	}
	if claim {
		g := &r.groups[r.cur]
		g.days, g.every, g.dayless, g.added = days, every, false, !every
		if g.added && r.base == r.cur {
			r.base = -1
		}
		r.cur, r.rangeEnd = -1, -1
		return j, true
	}
	return 0, false // days with nothing said of them: "平日 10-20 / 土日祝"
}

// claims reports whether the days at toks[start:end] claim the ranges before them: they follow a
// range of a group no days led, with only separators between, and nothing but "のみ" or "only"
// follows them before a separator ("11:00-21:00 daily", "ランチ 11:30〜14:00（土日のみ）", "10am-8pm
// Mon-Sat, closed Sun"). Several ranges are claimed only by days that end the cell ("11:30-14:00,
// 17:30-22:00 (Mon-Sat)"): elsewhere the days could be the last range's alone.
func (r *hoursReader) claims(start, end int) bool {
	if r.rangeEnd < 0 || r.cur < 0 || !r.groups[r.cur].dayless {
		return false
	}
	for x := r.rangeEnd; x < start; x++ {
		if r.at(x) != hSep && r.at(x) != hComma {
			return false
		}
	}
	next := len(r.s)
	if end < len(r.toks) {
		next = r.toks[end].start
	}
	if !gapOK(r.s[r.toks[end-1].end:next], claimGap) || end < len(r.toks) && r.at(end) != hSep && r.at(end) != hComma {
		return false // "（土日祝日は通し営業）", "（土日祝・年末年始休み）": something else is said of them
	}
	if len(r.groups[r.cur].spans) == 1 {
		return true
	}
	for x := end; x < len(r.toks); x++ {
		if r.at(x) != hSep && r.at(x) != hComma {
			return false
		}
	}
	return true
}

// closedDays reads a 定休日 at toks[i] and the days after it: "定休日：日曜・祝日", "closed on mondays",
// "【定休日】月曜日". One with no day right after it says nothing of the week ("年末年始休業",
// "定休日：なし", "定休日：年中無休").
func (r *hoursReader) closedDays(i int) (int, bool) {
	r.rangeEnd = -1
	j := i + 1
	if r.at(j) == hComma || r.at(j) == hSep {
		j++
	}
	switch r.at(j) {
	case hNone:
		r.passSep(j - 1)
		return j + 1, true
	case hTime, hAll24:
		return 0, false // "closed 15:00-17:00": a break, or days' hours?
	case hDay:
		if !gapOK(r.s[r.toks[j-1].end:r.toks[j].start], closedGap) {
			return i + 1, true // something stands between: "定休日：年末年始 月〜金 10-18"
		}
		days, every, k, ok := r.dayExpr(j)
		switch {
		case !ok:
			return 0, false
		case (r.at(k) == hTime || r.at(k) == hAll24) && gapOK(r.s[r.toks[k-1].end:r.toks[k].start], closedGap):
			return 0, false // "定休日 日曜 10:00-18:00": which?
		}
		r.passSep(j - 1)
		if !every {
			r.closed |= days
		}
		return k, true
	}
	return i + 1, true
}
