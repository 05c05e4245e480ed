package schema

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// A store's opening_hours cell is JSON as opening_hours.json describes, or, as scraped pages write it,
// text: "平日 10:00〜20:00／土日祝 10:00〜19:00", "Mon-Fri 10:00-20:00", "10時〜翌2時". ReadHours reads
// either into typed weekly hours, with one rule and the phrase table below; its precision and recall
// on a corpus of cells are logged by TestHoursCorpus (schema/testdata/hours.tsv).

// HolidayDay is the Day of the hours a store keeps on Japan's public holidays (祝日), in place of
// that weekday's; IsHoliday says which dates are holidays.
const HolidayDay = 7

// Span is one stretch of opening on a day: Day 0 is Monday, 6 Sunday, HolidayDay the public holidays.
// Open and Close are minutes from that day's 00:00, with Open < Close <= Open+24*60, so a close
// after midnight is past 24*60: "18:00-02:00" is Open 18*60, Close 26*60, as Japan's late-night
// notation "18:00-26:00" writes it. Open is at most 29:59, the notation's last minute.
type Span struct {
	Day         int
	Open, Close int
}

// Hours are a store's weekly hours: Spans sorted by Day and Open, and the days the cell says the store
// is closed (定休日, an empty JSON array). A day in neither is not known; a closed day has no spans.
type Hours struct {
	Spans  []Span
	Closed [8]bool
}

const (
	dayMinutes = 24 * 60
	latestOpen = 30*60 - 1 // 29:59
	allWeek    = 1<<7 - 1  // Monday to Sunday: what 毎日 means; holidays keep their weekday's hours
	holidayBit = 1 << HolidayDay
)

// maxHoursText bounds the cells ReadHours reads: a week's hours, even as JSON with lunch and dinner,
// are a few hundred bytes; a longer cell is not hours alone, and is not read (a part of it would be a
// guess).
const maxHoursText = 2048

// dayNames are the days as Hours.String writes them, jsonDays as the JSON form does.
var (
	dayNames = [8]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun", "hol"}
	jsonDays = [8]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "holiday"}
)

// ReadHours reads a store's opening_hours cell. ok is false when the rule cannot read it with
// confidence: the hours are then unknown, never guessed. A cell whose first non-space character is
// '{' is the JSON form (with 24:00〜29:59 accepted); anything else is text, read by readHoursText.
func ReadHours(cell string) (h Hours, ok bool) {
	if len(cell) > maxHoursText {
		return Hours{}, false
	}
	s := strings.TrimLeftFunc(cell, unicode.IsSpace)
	if strings.HasPrefix(s, "{") {
		return readHoursJSON(s)
	}
	return readHoursText(cell)
}

// readHoursJSON reads {"monday": [{"open": "10:00", "close": "20:00"}], ..., "holiday": [...]}: the
// keys are days, each an array of exactly open and close. A day left out is unknown; an object with
// no day says nothing.
func readHoursJSON(s string) (Hours, bool) {
	var days map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &days) != nil || len(days) == 0 {
		return Hours{}, false
	}
	var h Hours
	for key, raw := range days {
		d := indexOf(jsonDays[:], key)
		var items []map[string]string
		if d < 0 || json.Unmarshal(raw, &items) != nil || items == nil {
			return Hours{}, false
		}
		if len(items) == 0 {
			h.Closed[d] = true
		}
		for _, it := range items {
			o, ok1 := hhmm(it["open"])
			c, ok2 := hhmm(it["close"])
			sp, ok3 := makeSpan(d, o, c)
			if len(it) != 2 || !ok1 || !ok2 || !ok3 {
				return Hours{}, false
			}
			h.Spans = append(h.Spans, sp)
		}
	}
	sortSpans(h.Spans)
	return h, true
}

// hhmm reads the schema's "HH:MM", 00:00 to 29:59, as minutes.
func hhmm(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[3]) || !isDigit(s[4]) {
		return 0, false
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if h > 29 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// makeSpan normalises an open and a close as written: a close at or before the open is the next
// day's; a span longer than a day, or opening past 29:59, is not hours.
func makeSpan(d, open, close int) (Span, bool) {
	if close <= open {
		close += dayMinutes
	}
	if open < 0 || open > latestOpen || close <= open || close > open+dayMinutes {
		return Span{}, false
	}
	return Span{Day: d, Open: open, Close: close}, true
}

func sortSpans(ss []Span) {
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].Day != ss[j].Day {
			return ss[i].Day < ss[j].Day
		}
		return ss[i].Open < ss[j].Open
	})
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// String is the canonical form tests and the corpus compare: each known day in order, its spans or
// "closed", as "mon 11:30-14:00, 17:30-22:00; tue closed; ...; hol 10:00-19:00". Times are the day's
// minutes as HH:MM, so a close after midnight reads 26:00. Hours with no known day are "".
func (h Hours) String() string {
	var days []string
	for d := 0; d < 8; d++ {
		var spans []string
		for _, s := range h.Spans {
			if s.Day == d {
				spans = append(spans, clock(s.Open)+"-"+clock(s.Close))
			}
		}
		switch {
		case len(spans) > 0:
			days = append(days, dayNames[d]+" "+strings.Join(spans, ", "))
		case h.Closed[d]:
			days = append(days, dayNames[d]+" closed")
		}
	}
	return strings.Join(days, "; ")
}

func clock(m int) string {
	return string([]byte{byte('0' + m/600), byte('0' + m/60%10), ':', byte('0' + m%60/10), byte('0' + m%10)})
}

// hcue is what a phrase of hours text says.
type hcue int8

const (
	hDay       hcue = iota + 1 // days (its mask); every: 毎日, daily, a default named days override
	hTime                      // a time of day (numbers, read by readNumber): strong, or a bare hour
	hAll24                     // 24時間営業: 00:00-24:00
	hTo                        // a range: 〜, -, から, to
	hUntil                     // まで: the time before it is a close
	hOpenWord                  // open, 開店: the time next to it is an open
	hCloseWord                 // close, 閉店: the time next to it is a close
	hBreak                     // 休憩, break: the range next to it is a break in the hours
	hJoin                      // ・, &, and: joins days in a list; elsewhere nothing
	hComma                     // 、 ,: the same
	hSep                       // ends a clause: / ; ( ) a line break; ends what L.O. reaches
	hClosed                    // 定休日, 休み, closed: of the days before or after it
	hNone                      // なし, none: a 定休日 of no day
	hNext                      // 翌: the time after it is the next day's
	hAM                        // 午前, 朝: before a time
	hPM                        // 午後, 夜: before a time
	hLastOrder                 // L.O., ラストオーダー: the time next to it is not a close
	hRefuse                    // says the hours vary or are not these: the cell is not read
	hFiller                    // says nothing, and keeps its characters from being read as days
	hEvery                     // in the table only: hDay of every day, a default (毎日, daily)
)

type hoursPhrase struct {
	cue   hcue
	days  uint8
	words []string
}

const (
	mon = 1 << iota
	tue
	wed
	thu
	fri
	sat
	sun
)

// hoursPhrases is the text rule's table. Text is folded (NFKC, lower case, one space between words)
// before it is matched, so full-width digits, colons and letters read; at each place the longest
// phrase wins ("定休日" over "日", "祝前日" over "祝"), and a phrase of ASCII letters matches whole
// words only (an "s" may follow: "mondays"). Numbers are read apart, by readNumber. Words in no phrase
// are skipped: "営業時間", "ランチ", "open".
var hoursPhrases = []hoursPhrase{
	{hDay, mon, []string{"月", "月曜", "月曜日", "mon", "monday"}},
	{hDay, tue, []string{"火", "火曜", "火曜日", "tue", "tues", "tuesday"}},
	{hDay, wed, []string{"水", "水曜", "水曜日", "wed", "weds", "wednesday"}},
	{hDay, thu, []string{"木", "木曜", "木曜日", "thu", "thur", "thurs", "thursday"}},
	{hDay, fri, []string{"金", "金曜", "金曜日", "fri", "friday"}},
	{hDay, sat, []string{"土", "土曜", "土曜日", "sat", "saturday"}},
	{hDay, sun, []string{"日", "日曜", "日曜日", "sun", "sunday"}},
	{hDay, mon | tue | wed | thu | fri, []string{"平日", "weekday", "weekdays"}},
	{hDay, sat | sun, []string{"土日", "週末", "weekend", "weekends"}},
	{hDay, holidayBit, []string{"祝", "祝日", "祝祭日", "祭日", "holiday", "public holiday", "national holiday",
		"bank holiday"}},
	{hEvery, allWeek, []string{"毎日", "年中無休", "無休", "全日", "daily", "every day", "everyday", "open daily",
		"seven days a week", "all week"}},

	{hTo, 0, []string{"〜", "~", "-", "–", "—", "―", "−", "‐", "∼", "から", "より", "to", "until", "till", "til",
		"through", "thru"}},
	{hUntil, 0, []string{"まで", "迄"}},
	{hOpenWord, 0, []string{"open", "opens", "開店", "オープン", "開館", "開場"}},
	{hCloseWord, 0, []string{"close", "closes", "閉店", "クローズ", "閉館", "閉場"}},
	{hBreak, 0, []string{"休憩", "休憩時間", "昼休み", "中休み", "中抜け", "アイドルタイム", "break", "lunch break"}},
	{hJoin, 0, []string{"・", "&", "+", "and", "と", "及び", "および"}},
	{hComma, 0, []string{"、", ","}},
	{hSep, 0, []string{"/", ";", "|", "。", "(", ")", "[", "]", "【", "】", "「", "」", "〈", "〉", "<", ">", "※"}},
	{hClosed, 0, []string{"定休日", "定休", "休み", "お休み", "休業", "休業日", "休館", "休館日", "店休日", "休店日",
		"休", "休診", "休診日", "closed", "day off", "days off"}},
	{hNone, 0, []string{"なし", "無し", "ナシ", "ありません", "none", "no"}},
	{hNext, 0, []string{"翌", "翌日", "翌朝", "next day"}},
	{hAM, 0, []string{"午前", "朝", "am", "a.m."}},
	{hPM, 0, []string{"午後", "夜", "夕方", "pm", "p.m."}},
	{hLastOrder, 0, []string{"l.o.", "l.o", "lo", "l/o", "ラストオーダー", "ラストオーダ", "オーダーストップ",
		"last order", "last orders", "last call", "最終入場", "最終入館", "最終受付", "最終入店", "受付終了",
		"last entry", "last admission", "入館は", "入場は", "受付は", "入店は"}},

	// Words that make the hours uncertain or not these: 不定休, a season, a date, "sold out", a caveat.
	{hRefuse, 0, []string{"不定休", "不定期", "変動", "変更", "異なる", "異なり", "異なります", "要確認",
		"確認", "問い合わせ", "問合せ", "問合わせ", "売り切れ", "売切れ", "売り切れ次第", "なくなり次第",
		"無くなり次第", "品切れ", "完売", "次第", "頃", "ごろ", "前後", "予定", "未定", "調整中", "季節", "夏季",
		"冬季", "夏期", "冬期", "期間", "時期", "シーズン", "場合", "除く", "以外", "第", "隔週", "毎月", "月末",
		"上旬", "中旬", "下旬", "祝前日", "休前日", "前日", "祝日前", "休日", "連休", "準備中", "休業中",
		"臨時休業中", "貸切", "貸し切り", "イベント", "日没", "日の出", "臨時営業", "短縮", "時短", "当面",
		"しばらく", "テイクアウト", "イートイン", "最終", "最終日", "初日",
		"varies", "vary", "varying", "irregular", "subject to change", "change", "changes", "seasonal",
		"season", "summer", "winter", "spring", "autumn", "except", "excluding", "unless", "approx",
		"approximately", "around", "about", "sold out", "sell out", "sells out", "tbd", "tba", "n/a", "check",
		"contact", "call", "website", "appointment", "reservation only", "reservations only", "temporarily",
		"late", "month", "monthly", "other", "alternate", "takeout", "take-out", "take out", "eve", "before"}},
	// Words with a day's character that are no day: 料金 is no Friday.
	{hFiller, 0, []string{"料金", "金額", "現金", "土産", "日替わり", "日替り", "本日", "当日", "日中", "月替わり",
		"曜日", "曜", "毎週", "every", "週", "営業日", "営業時間", "年末年始", "年末年始を除く", "年末年始除く",
		"臨時休業", "臨時休業あり", "定休日なし", "定休日無し", "休みなし", "深夜", "夜間", "日本", "土地",
		"時間", "臨時休業の場合", "臨時休業の際", "元日", "元旦", "大晦日", "正月", "年始", "年末", "お盆"}},
}

// Special numbers, as words: 正午 and noon are 12:00, midnight 24:00.
var hoursTimes = map[string]int{"正午": 12 * 60, "noon": 12 * 60, "midnight": dayMinutes, "真夜中": dayMinutes}

type hoursNode struct {
	next  map[byte]*hoursNode
	leaf  bool
	ascii bool
	cue   hcue
	days  uint8
	every bool
	time  int // hTime of a word: its minutes
}

var (
	hoursTrieOnce sync.Once
	hoursTrieRoot *hoursNode
)

// hoursTrie is hoursPhrases and hoursTimes folded into a byte trie, built once.
func hoursTrie() *hoursNode {
	hoursTrieOnce.Do(func() {
		root := &hoursNode{next: map[byte]*hoursNode{}}
		add := func(w string, n hoursNode) {
			w = foldHours(w)
			at := root
			for i := 0; i < len(w); i++ {
				c := at.next[w[i]]
				if c == nil {
					c = &hoursNode{next: map[byte]*hoursNode{}}
					at.next[w[i]] = c
				}
				at = c
			}
			if at.leaf {
				panic("schema: hours phrase " + w + " listed twice")
			}
			n.next, n.leaf, n.ascii = at.next, true, w[0] >= 'a' && w[0] <= 'z'
			*at = n
		}
		for _, g := range hoursPhrases {
			for _, w := range g.words {
				n := hoursNode{cue: g.cue, days: g.days}
				if g.cue == hEvery {
					n.cue, n.every = hDay, true
				}
				add(w, n)
			}
		}
		for w, m := range hoursTimes {
			add(w, hoursNode{cue: hTime, time: m})
		}
		hoursTrieRoot = root
	})
	return hoursTrieRoot
}

// foldHours is FoldNFKC with a line break a clause's end and every run of white space one space.
func foldHours(s string) string {
	return strings.Join(strings.Fields(hoursMarks.Replace(FoldNFKC(s))), " ")
}

// hoursMarks: a line break ends a clause, as "/" does.
var hoursMarks = strings.NewReplacer("\r\n", " / ", "\n", " / ", "\r", " / ")

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
			i += runeLen(s[i])
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

// HoursSchemaFile is opening_hours' JSON Schema: a cell of that column may be text instead, which
// ReadHours reads by the same rule.
const HoursSchemaFile = "opening_hours.json"

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
