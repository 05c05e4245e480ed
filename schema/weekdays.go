package schema

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// weekdayWords are the days of the week in EventWeekdays' order and words.
var weekdayWords = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// days is a set of weekdays, bit i for weekdayWords[i].
type days uint8

const (
	allDays     days = 1<<7 - 1
	weekendDays days = 1<<5 | 1<<6
	workDays         = allDays &^ weekendDays
)

// dayCue is what a phrase of an event's text says about its weekdays.
type dayCue int8

const (
	dayName    dayCue = iota + 1 // a weekday or a group of them: "土曜日", "土", "saturdays", "平日", "週末"
	dayHoliday                   // a public holiday: part of a list of days, but no weekday ("土日祝")
	daySep                       // joins days in a list: "・", "、", "and", "&"
	dayRange                     // joins the two ends of a range: "〜", "-", "to", "から"
	dayWeekly                    // a repetition before a day: "毎週", "隔週", "第2", "every"
	dayOpen                      // held then, before or after the days: "のみ", "限定", "開催", "only", "held on"
	dayClosed                    // closed then, before or after the days: "休館", "定休日", "closed", "except"
	dayEvery                     // every day: "毎日", "daily"
	dayNoClose                   // no day closed, whatever else is said: "無休", "会期中無休"
	dayOther                     // what follows, to the end of the sentence, is about something else: "受付", "駐車場は", "parking"
	dayRemark                    // its part of a sentence is a remark or a desk's days, not a schedule: "混雑", "承ります"
	dayNeutral                   // a word that holds a day's character but names none: "当日", "料金", "this weekend"
	dayBreak                     // ends a sentence: "。", ".", ";"
)

// dayForm is how a day is written, which decides whether it needs company to count.
type dayForm int8

const (
	formWord    dayForm = iota // "土曜", "saturday", "平日", "週末": a day by itself, counted with a cue
	formSingle                 // "土", "sat": a day only in a list, after a repetition, or a closing day's
	formPlural                 // "saturdays": a repeated day, counted without a cue
	formPlurals                // "weekends": counted with a cue, a time after it too ("weekends are busy" has none)
	formWeekly                 // "毎週末": a repetition and its days in one
)

type dayPhrase struct {
	cue   dayCue
	days  days
	form  dayForm
	words []string
}

// weekdayNames are the days' words: kanji, English and English abbreviations, in weekdayWords' order.
var weekdayNames = [7]struct {
	kanji, en string
	abbr      []string
}{
	{"月", "monday", []string{"mon"}},
	{"火", "tuesday", []string{"tue", "tues"}},
	{"水", "wednesday", []string{"wed", "weds"}},
	{"木", "thursday", []string{"thu", "thur", "thurs"}},
	{"金", "friday", []string{"fri"}},
	{"土", "saturday", []string{"sat"}},
	{"日", "sunday", []string{"sun"}},
}

// weekdayPhrases is the rule's table besides the days' own names (weekdayNames). Text is folded as
// offerPhrases are (NFKC, lower case, one space between words; a line break ends a sentence); at each
// place the longest phrase wins, so "毎週末" is not "毎週" and "当日" holds no Sunday. ASCII phrases
// match whole words.
var weekdayPhrases = []dayPhrase{
	{dayName, weekendDays, formWord, []string{"週末", "weekend"}},
	{dayName, weekendDays, formWeekly, []string{"毎週末", "every weekend"}},
	{dayName, weekendDays, formPlurals, []string{"weekends"}},
	{dayName, workDays, formWord, []string{"平日", "weekday"}},
	{dayName, workDays, formPlurals, []string{"weekdays"}},
	{dayHoliday, 0, formWord, []string{"祝", "祝日", "祝祭日", "祭日", "祝休日", "holiday", "holidays",
		"public holiday", "public holidays", "national holiday", "national holidays"}},
	{daySep, 0, formWord, []string{"・", "、", ",", "/", "&", "と", "及び", "および", "and", "or"}},
	{dayRange, 0, formWord, []string{"〜", "~", "-", "–", "—", "から", "to", "through", "thru", "till"}},
	{dayWeekly, 0, formWord, []string{"毎週", "隔週", "第1", "第2", "第3", "第4", "第5", "第一", "第二", "第三",
		"第四", "第五", "every", "each", "every other", "every second", "every third", "every first",
		"every fourth", "every 1st", "every 2nd", "every 3rd", "every 4th", "alternate"}},
	{dayOpen, 0, formWord, []string{"のみ", "限定", "だけ", "限り", "開催", "開催日", "開催曜日", "実施", "実施日",
		"開講", "開講日", "開館", "開館日", "営業", "営業日", "出店", "開店", "開場", "開園", "上演", "公演",
		"only", "only on", "held", "held on", "held from", "open", "open on", "open from", "opens", "runs", "runs on", "takes place", "take place"}},
	{dayClosed, 0, formWord, []string{"休", "休み", "お休み", "休館", "休館日", "休業", "休業日", "定休", "定休日",
		"休園", "休園日", "休演", "休演日", "休催", "休場", "除く", "除き", "以外", "closed", "closed on", "closes",
		"except", "except on", "excluding"}},
	{dayEvery, allDays, formWord, []string{"毎日", "連日", "daily", "every day", "everyday"}},
	{dayNoClose, 0, formWord, []string{"無休", "年中無休", "会期中無休", "休館日なし", "定休日なし", "休みなし",
		"no closing day", "no closing days"}},
	{dayOther, 0, formWord, []string{"受付", "窓口", "問い合わせ", "お問い合わせ", "問合せ", "お問合せ", "電話",
		"駐車場", "駐輪場", "カフェは", "ショップは", "レストランは", "売店", "店舗", "事務局", "営業時間", "診療",
		"配送", "発送", "parking", "box office", "office", "reception", "inquiries", "enquiries", "phone",
		"shop hours", "store hours", "café is", "cafe is", "café hours", "cafe hours", "restaurant is",
		"customer service"}},
	{dayRemark, 0, formWord, []string{"混雑", "混み", "混む", "込み", "賑わ", "にぎわ", "売り切れ", "crowded",
		"busy", "busier", "sell out", "sells out",
		"承ります", "承り", "受け付け", "受付け", "accepted", "answered"}}, // a desk's days: "ご予約は平日のみ承ります"
	{dayNeutral, 0, formWord, []string{"当日", "本日", "前日", "翌日", "初日", "最終日", "終日", "先日", "後日",
		"昨日", "今日", "明日", "日本", "日時", "日程", "日中", "日付", "日替わり", "日帰り", "年月日", "月日",
		"毎月", "今月", "来月", "先月", "月末", "月初", "月額", "月間", "ヶ月", "か月", "カ月", "正月", "月見",
		"休日", "休憩", "休暇", "連休", "翌平日", "今週末", "来週末", "先週末", "祝い", "土産", "土地", "土木",
		"料金", "現金", "金額", "税金", "賞金", "白金", "六本木", "日比谷", "水族館", "花火",
		"this weekend", "next weekend", "last weekend", "weekend of", "last saturday", "last sunday"}},
	{dayBreak, 0, formWord, []string{"。", ".", "!", "?", ";"}},
}

// maxWeekdayBytes bounds what EventWeekdays reads of each text, as maxOfferBytes does ReadOffer.
const maxWeekdayBytes = 4096

// EventWeekdays returns the weekdays an event is held on, as its free texts say them (its name,
// description and additional information): lower-case English names in order, monday to sunday, or
// nil when they say it is held every day or say nothing of its weekdays. A public holiday is not a
// weekday: "土日祝" is Saturday and Sunday, and the holidays are left out. Its reading:
//
//   - A list of days ("土日", "月・木", "火〜日", "Saturdays and Sundays", "平日", "週末") counts when
//     something says it is a schedule: a repetition before it ("毎週", "every"), "only", "held" and
//     the like before or after it ("土日のみ", "土日祝開催", "開催日：土日"), a time after it ("土日祝
//     10:00〜"), or an English plural ("Sundays").
//   - A closing word before or after it ("月曜休館", "休館日：月曜", "closed on Mondays", "月曜を除く")
//     makes its days closed; the event is held on the others, or on the days another list names.
//     "無休" ignores every closed day.
//   - A lone day's character counts only after a repetition or a closing word ("毎週土"): "金" and
//     "日" are words of their own more often than days. A day in brackets after a number is a date's
//     ("9月27日(土)", "10/4(土)・10/5(日)"), and so is a singular English day without a cue
//     ("Saturday, October 4"): the event's date range already says when.
//   - What follows "受付", "駐車場は", "parking" and the like, to the end of the sentence, is another
//     thing's hours; a part of a sentence with "混雑" or "crowded" is a remark ("土日祝は混雑").
func EventWeekdays(texts ...string) []string {
	var open, closed days
	noClose := false
	for _, t := range texts {
		r := readWeekdays(foldWeekdays(clipText(t, maxWeekdayBytes)))
		open, closed, noClose = open|r.open, closed|r.closed, noClose || r.noClose
	}
	if noClose {
		closed = 0
	}
	held := open
	if held == 0 && closed != 0 {
		held = allDays
	}
	held &^= closed
	if held == 0 || held == allDays {
		return nil
	}
	var out []string
	for i, d := range weekdayWords {
		if held&(1<<i) != 0 {
			out = append(out, d)
		}
	}
	return out
}

// foldWeekdays is foldSpaced with line breaks as the ends of sentences.
func foldWeekdays(s string) string { return foldSpaced(weekdayMarks.Replace(s)) }

var weekdayMarks = strings.NewReplacer("\r\n", "。", "\n", "。", "\r", "。")

type dayTok struct {
	start, end int
	cue        dayCue
	days       days
	form       dayForm
}

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

// tokenizeWeekdays finds the phrases of s, the longest at each place, left to right, as tokenize does
// the offers'.
func tokenizeWeekdays(s string) []dayTok {
	root := weekdayTrie()
	var toks []dayTok
	for i := 0; i < len(s); {
		n, best, bestEnd := root, (*dayNode)(nil), 0
		for j := i; j < len(s); j++ {
			if n = n.next[s[j]]; n == nil {
				break
			}
			if n.leaf && wordEnds(s, i, j+1, n.ascii) {
				best, bestEnd = n, j+1
			}
		}
		if best == nil {
			i += runeLen(s[i])
			continue
		}
		toks = append(toks, dayTok{start: i, end: bestEnd, cue: best.cue, days: best.days, form: best.form})
		i = bestEnd
	}
	return toks
}

type dayNode struct {
	next  map[byte]*dayNode
	leaf  bool
	ascii bool
	cue   dayCue
	days  days
	form  dayForm
}

// weekdayTrie is weekdayNames and weekdayPhrases folded into a byte trie, built once.
var weekdayTrie = sync.OnceValue(func() *dayNode {
	phrases := append([]dayPhrase(nil), weekdayPhrases...)
	for i, n := range weekdayNames {
		d := days(1) << i
		phrases = append(phrases,
			dayPhrase{dayName, d, formSingle, append([]string{n.kanji}, n.abbr...)},
			dayPhrase{dayName, d, formWord, []string{n.kanji + "曜", n.kanji + "曜日", n.en}},
			dayPhrase{dayName, d, formPlural, []string{n.en + "s"}})
		for _, a := range n.abbr {
			phrases = append(phrases, dayPhrase{dayName, d, formSingle, []string{a + "."}})
		}
	}
	root := &dayNode{next: map[byte]*dayNode{}}
	for _, p := range phrases {
		for _, w := range p.words {
			w = foldWeekdays(w)
			n := root
			for i := 0; i < len(w); i++ {
				c := n.next[w[i]]
				if c == nil {
					c = &dayNode{next: map[byte]*dayNode{}}
					n.next[w[i]] = c
				}
				n = c
			}
			if n.leaf {
				panic("schema: weekday phrase " + w + " listed twice")
			}
			n.leaf, n.cue, n.days, n.form = true, p.cue, p.days, p.form
			n.ascii = w[0] >= 'a' && w[0] <= 'z'
		}
	}
	return root
})
