package hours

import (
	"strings"
	"sync"

	"github.com/azabudai/ctool/schema"
)

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
	return strings.Join(strings.Fields(hoursMarks.Replace(schema.FoldNFKC(s))), " ")
}

// hoursMarks: a line break ends a clause, as "/" does.
var hoursMarks = strings.NewReplacer("\r\n", " / ", "\n", " / ", "\r", " / ")
