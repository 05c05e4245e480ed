package hours

// timeRange reads a range at toks[i] ("10:00-20:00", "10時〜翌2時", "24時間営業", "open 10am, close
// 8pm") into the current group, or a time L.O. names, which it drops.
func (r *hoursReader) timeRange(i int) (int, bool) {
	if r.toks[i].cue == hAll24 {
		r.add(i+1, Span{Open: 0, Close: dayMinutes})
		return i + 1, true
	}
	open, j, ok := r.time(i)
	switch {
	case !ok:
		return 0, false
	case r.lastOrd: // "L.O. 22:30"
		r.lastOrd = false
		return j, true
	case r.at(j) == hLastOrder: // "22:30 L.O."
		return j + 1, true
	case r.at(j) == hTo && r.startsTime(j+1):
		close, k, ok := r.time(j + 1)
		if !ok {
			return 0, false
		}
		return r.put(i, k, open, close)
	case !open.strong:
		return j, true // a bare number is no time: "1f"
	case r.at(i-1) == hOpenWord || r.at(j) == hOpenWord:
		return r.openClose(j, open)
	case r.at(j) == hUntil || r.at(j) == hCloseWord || r.at(j) == hTo:
		// One end: "日曜は18:00まで", "土日祝 8:00〜" after an every-day range; else no hours
		// ("11:00〜売り切れ次第", "20時まで").
		return r.oneEnd(i, r.at(j) != hTo)
	}
	return 0, false // a time alone
}

// openClose reads the close that follows an open named so: "OPEN 11:00 / CLOSE 22:00", "10時開店
// 20時閉店", "Open 10am, closes 8pm". open ends at toks[j].
func (r *hoursReader) openClose(j int, open htok) (int, bool) {
	k := j
	if r.at(k) == hOpenWord {
		k++
	}
	for r.at(k) == hSep || r.at(k) == hComma {
		r.passSep(k)
		k++
	}
	var close htok
	var ok bool
	switch {
	case r.at(k) == hCloseWord && r.startsTime(k+1):
		close, k, ok = r.time(k + 1)
	case r.startsTime(k):
		close, k, ok = r.time(k)
		if r.at(k) != hCloseWord && r.at(k) != hUntil {
			return 0, false
		}
		k++
	}
	if !ok || !close.strong {
		return 0, false
	}
	return r.put(k, k, open, close)
}

// put normalises the range open-close that ends before toks[k] and adds it to the current group; a
// range next to 休憩 or break is taken out of the one that holds it instead. i is where it starts.
func (r *hoursReader) put(i, k int, open, close htok) (int, bool) {
	switch {
	case !open.strong && !close.strong && (r.cur < 0 || r.groups[r.cur].dayless):
		return 0, false // a bare hour is read only after days: "11-21" alone could be anything
	case !open.strong && !close.strong && close.min < open.min && open.min < 12*60:
		return 0, false // "9-5", "11-7": a twelve-hour clock, not a night
	case open.mer == 0 && close.mer == 2 && open.hour >= 1 && open.min < 12*60:
		// "6-11pm" is 18:00-23:00, "11-2pm" 11:00-14:00.
		if open.hour < close.hour%12 {
			open.min += 12 * 60
		}
	case open.mer != 0 && close.mer == 0 && close.min < 13*60:
		return 0, false // "10am-8": which 8?
	}
	sp, ok := makeSpan(0, open.min, close.min)
	if !ok {
		return 0, false
	}
	if r.at(k) == hUntil { // "10時から20時まで"
		k++
	}
	if r.at(k) == hBreak || r.at(i-1) == hBreak { // "（12:00〜13:00は昼休み）", "休憩 14:00-15:00"
		if r.at(k) == hBreak {
			k++
		}
		return k, r.cut(sp)
	}
	r.add(k, sp)
	return k, true
}

// oneEnd reads the time at toks[i] as a close (or an open), the other end the every-day range's: days
// after "10:00〜20:00" change one end of it ("（日曜は18:00まで）", "（土日祝 8:00〜）"). Anywhere else a
// single time is not read.
func (r *hoursReader) oneEnd(i int, close bool) (int, bool) {
	t, j, ok := r.time(i)
	if !ok || !t.strong || r.cur < 0 || r.groups[r.cur].every || r.groups[r.cur].dayless ||
		r.base < 0 || len(r.groups[r.base].spans) != 1 {
		return 0, false
	}
	b := r.groups[r.base].spans[0]
	open, shut := t.min, b.Close
	if close {
		open, shut = b.Open, t.min
	}
	if r.at(j) == hUntil || r.at(j) == hTo || r.at(j) == hCloseWord {
		j++
	}
	sp, ok := makeSpan(0, open, shut)
	if ok {
		r.add(j, sp)
	}
	return j, ok
}

// startsTime reports whether a time starts at toks[i]: a time, or 翌, 午前 or 午後 touching one.
func (r *hoursReader) startsTime(i int) bool {
	for ; r.at(i) == hNext || r.at(i) == hAM || r.at(i) == hPM; i++ {
		if i+1 >= len(r.toks) || r.toks[i+1].start-r.toks[i].end > 1 {
			return false
		}
	}
	return r.at(i) == hTime
}

// time reads a time and the 翌, 午前 or 午後 right before it.
func (r *hoursReader) time(i int) (htok, int, bool) {
	next, mer := false, hcue(0)
	for ; r.at(i) == hNext || r.at(i) == hAM || r.at(i) == hPM; i++ {
		if r.at(i) == hNext {
			next = true
		} else {
			mer = r.at(i)
		}
		// A modifier must touch its time: "翌2時", "午後 8時".
		if i+1 >= len(r.toks) || r.toks[i+1].start-r.toks[i].end > 1 {
			return htok{}, 0, false
		}
	}
	if r.at(i) != hTime {
		return htok{}, 0, false // 翌 or 午後 with no time: "翌日休み"
	}
	t := r.toks[i]
	if mer != 0 && t.mer == 0 {
		t.strong = true
		if mer == hPM && t.min < 12*60 {
			t.min += 12 * 60
		}
	}
	if next && t.min < dayMinutes {
		t.min += dayMinutes
		t.strong = true
	}
	return t, i + 1, true
}

// add puts a span into the current group, or into a new every-day group when no days led it; end is
// the token after the range.
func (r *hoursReader) add(end int, sp Span) {
	if r.cur < 0 {
		r.groups = append(r.groups, hgroup{days: allWeek, every: true, dayless: true})
		r.cur = len(r.groups) - 1
		r.base = r.cur
		if r.inBracket {
			r.bracketOpen = r.cur
		}
	}
	g := &r.groups[r.cur]
	g.spans = append(g.spans, sp)
	r.rangeEnd = end
}

// cut takes a break out of the current group's range that holds it.
func (r *hoursReader) cut(b Span) bool {
	if r.cur < 0 {
		return false
	}
	g := &r.groups[r.cur]
	for x, sp := range g.spans {
		if sp.Open < b.Open && b.Close < sp.Close {
			g.spans[x].Close = b.Open
			g.spans = append(g.spans, Span{Open: b.Close, Close: sp.Close})
			return true
		}
	}
	return false
}

// maxDaySpans bounds the ranges of a day: a store opens a few times a day at most, and the bound
// keeps resolve's comparisons small.
const maxDaySpans = 12

// resolve gives each day its hours: its named groups' ranges in place of the every-day ranges they
// overlap ("毎日 10-20 / 日曜 10-18") and besides those they do not ("毎日 18-24 / 金 24-26"), with
// the ranges days after them claimed, less closed days. Holidays named so take the every-day ranges
// as a weekday does ("11:30-14:00（土日祝は〜15:00）17:30-22:00"); not named, they have no hours
// of their own.
func (r *hoursReader) resolve() (Hours, bool) {
	var h Hours
	var named, general, added [8][]Span
	var everyDay []Span
	for _, g := range r.groups {
		if len(g.spans) == 0 {
			return Hours{}, false // days whose range was not read
		}
		if g.every {
			everyDay = append(everyDay, g.spans...)
		}
		for d := 0; d < 8; d++ {
			switch {
			case g.days&(1<<d) == 0:
			case g.every:
				general[d] = append(general[d], g.spans...)
			case g.added:
				added[d] = append(added[d], g.spans...)
			default:
				named[d] = append(named[d], g.spans...)
			}
		}
	}
	if len(named[HolidayDay]) > 0 && len(general[HolidayDay]) == 0 {
		general[HolidayDay] = everyDay
	}
	for d := 0; d < 8; d++ {
		if len(general[d])+len(named[d])+len(added[d]) > maxDaySpans {
			return Hours{}, false
		}
		if r.closed&(1<<d) != 0 {
			if len(named[d]) > 0 || len(added[d]) > 0 {
				return Hours{}, false // "月〜土 10-20 定休日：土"
			}
			h.Closed[d] = true
			continue
		}
		start := len(h.Spans)
		for _, sp := range general[d] {
			if !overlap(sp, named[d]) {
				sp.Day = d
				h.Spans = append(h.Spans, sp)
			}
		}
		for _, sp := range append(named[d], added[d]...) {
			sp.Day = d
			h.Spans = append(h.Spans, sp)
		}
		today := h.Spans[start:]
		sortSpans(today)
		for k := 1; k < len(today); k++ {
			if today[k].Open < today[k-1].Close {
				return Hours{}, false // "ショップ 10-20 / カフェ 11-19": two places' hours
			}
		}
	}
	if len(h.Spans) == 0 {
		return Hours{}, false
	}
	return h, true
}

// overlap reports whether sp overlaps a span of ss.
func overlap(sp Span, ss []Span) bool {
	for _, x := range ss {
		if sp.Open < x.Close && x.Open < sp.Close {
			return true
		}
	}
	return false
}
