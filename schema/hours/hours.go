// Package hours reads when, in Tokyo time, from the data's free text: a store's opening hours (Read,
// the JSON form or text), Japan's public holidays whose hours a store may keep apart (IsHoliday,
// Holidays), and the weekdays an event is held on (EventWeekdays). Ingest stores what it reads
// (migrations/derive.go); the SQL macro is_open reads those rows.
package hours

import (
	"strings"
	"unicode"
)

// A store's opening_hours cell is JSON as opening_hours.json describes, or, as scraped pages write it,
// text: "平日 10:00〜20:00／土日祝 10:00〜19:00", "Mon-Fri 10:00-20:00", "10時〜翌2時". Read reads
// either into typed weekly hours, with one rule and one phrase table; its precision and recall on a
// corpus of cells are logged by TestHoursCorpus (schema/hours/testdata/hours.tsv). The JSON form is
// read in hours_json.go; the text with the phrase table of hours_phrases.go, the tokenizer of
// hours_tokens.go, and the reader of hours_text.go (days) and hours_ranges.go (times, and each
// day's spans).

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

// maxHoursText bounds the cells Read reads: a week's hours, even as JSON with lunch and dinner,
// are a few hundred bytes; a longer cell is not hours alone, and is not read (a part of it would be a
// guess).
const maxHoursText = 2048

// dayNames are the days as Hours.String writes them, jsonDays as the JSON form does.
var (
	dayNames = [8]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun", "hol"}
	jsonDays = [8]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "holiday"}
)

// Read reads a store's opening_hours cell. ok is false when the rule cannot read it with
// confidence: the hours are then unknown, never guessed. A cell whose first non-space character is
// '{' is the JSON form (with 24:00〜29:59 accepted); anything else is text, read by readHoursText.
func Read(cell string) (h Hours, ok bool) {
	if len(cell) > maxHoursText {
		return Hours{}, false
	}
	s := strings.TrimLeftFunc(cell, unicode.IsSpace)
	if strings.HasPrefix(s, "{") {
		return readHoursJSON(s)
	}
	return readHoursText(cell)
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

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
