package hours

import (
	"strings"
	"sync"

	"github.com/azabudai/ctool/schema/internal/textscan"
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

// maxWeekdayBytes bounds what EventWeekdays reads of each text, as offers.Read bounds a cell (schema/offers).
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
		r := readWeekdays(foldWeekdays(textscan.Clip(t, maxWeekdayBytes)))
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

// foldWeekdays is textscan.Spaced with line breaks as the ends of sentences.
func foldWeekdays(s string) string { return textscan.Spaced(weekdayMarks.Replace(s)) }

var weekdayMarks = strings.NewReplacer("\r\n", "。", "\n", "。", "\r", "。")

type dayTok struct {
	start, end int
	cue        dayCue
	days       days
	form       dayForm
}

// tokenizeWeekdays finds the phrases of s, the longest at each place, left to right, as the offers'
// tokenizer does (textscan.Trie).
func tokenizeWeekdays(s string) []dayTok {
	var toks []dayTok
	for _, m := range weekdayTrie().Match(s) {
		toks = append(toks, dayTok{start: m.Start, end: m.End, cue: m.Value.cue, days: m.Value.days, form: m.Value.form})
	}
	return toks
}

// dayValue is what a weekday phrase says.
type dayValue struct {
	cue  dayCue
	days days
	form dayForm
}

// weekdayTrie is weekdayNames and weekdayPhrases folded into a byte trie, built once.
var weekdayTrie = sync.OnceValue(func() *textscan.Trie[dayValue] {
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
	trie := textscan.NewTrie[dayValue]()
	for _, p := range phrases {
		for _, w := range p.words {
			w = foldWeekdays(w)
			if _, had := trie.Add(w, dayValue{p.cue, p.days, p.form}); had {
				panic("schema: weekday phrase " + w + " listed twice")
			}
		}
	}
	return trie
})
