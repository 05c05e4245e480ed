package hours

import (
	"sort"
	"time"

	"github.com/azabudai/ctool/schema"
)

// Japan's public holidays, for the hours a store keeps on them (Holiday). No maintained Go package is
// at hand, so this is a dated table, copied from the Cabinet Office's list: 内閣府「国民の祝日について」,
// https://www8.cao.go.jp/chosei/shukujitsu/gaiyou.html, and its syukujitsu.csv, which holds each year
// once the equinox days are announced (in February of the year before). It lists every 国民の祝日,
// 振替休日 (a holiday on a Sunday moves to the next weekday) and 国民の休日 (a day between two holidays);
// the CSV names the last two "休日", this table by their kind. TestHolidayTableCoversTheData fails when
// the data or the clock near HolidaysEnd: extend the table from the same source then.

// Holiday is one public holiday: its date (00:00 in Tokyo) and name.
type Holiday struct {
	Date time.Time
	Name string
}

// HolidaysEnd is the last date the table covers. Past it IsHoliday knows nothing, and says false.
var HolidaysEnd = time.Date(2027, 12, 31, 0, 0, 0, 0, schema.Tokyo)

// holidaysStart is the first date the table covers.
var holidaysStart = time.Date(2024, 1, 1, 0, 0, 0, 0, schema.Tokyo)

var holidayTable = []struct{ date, name string }{
	{"2024-01-01", "元日"},
	{"2024-01-08", "成人の日"},
	{"2024-02-11", "建国記念の日"},
	{"2024-02-12", "振替休日"},
	{"2024-02-23", "天皇誕生日"},
	{"2024-03-20", "春分の日"},
	{"2024-04-29", "昭和の日"},
	{"2024-05-03", "憲法記念日"},
	{"2024-05-04", "みどりの日"},
	{"2024-05-05", "こどもの日"},
	{"2024-05-06", "振替休日"},
	{"2024-07-15", "海の日"},
	{"2024-08-11", "山の日"},
	{"2024-08-12", "振替休日"},
	{"2024-09-16", "敬老の日"},
	{"2024-09-22", "秋分の日"},
	{"2024-09-23", "振替休日"},
	{"2024-10-14", "スポーツの日"},
	{"2024-11-03", "文化の日"},
	{"2024-11-04", "振替休日"},
	{"2024-11-23", "勤労感謝の日"},

	{"2025-01-01", "元日"},
	{"2025-01-13", "成人の日"},
	{"2025-02-11", "建国記念の日"},
	{"2025-02-23", "天皇誕生日"},
	{"2025-02-24", "振替休日"},
	{"2025-03-20", "春分の日"},
	{"2025-04-29", "昭和の日"},
	{"2025-05-03", "憲法記念日"},
	{"2025-05-04", "みどりの日"},
	{"2025-05-05", "こどもの日"},
	{"2025-05-06", "振替休日"},
	{"2025-07-21", "海の日"},
	{"2025-08-11", "山の日"},
	{"2025-09-15", "敬老の日"},
	{"2025-09-23", "秋分の日"},
	{"2025-10-13", "スポーツの日"},
	{"2025-11-03", "文化の日"},
	{"2025-11-23", "勤労感謝の日"},
	{"2025-11-24", "振替休日"},

	{"2026-01-01", "元日"},
	{"2026-01-12", "成人の日"},
	{"2026-02-11", "建国記念の日"},
	{"2026-02-23", "天皇誕生日"},
	{"2026-03-20", "春分の日"},
	{"2026-04-29", "昭和の日"},
	{"2026-05-03", "憲法記念日"},
	{"2026-05-04", "みどりの日"},
	{"2026-05-05", "こどもの日"},
	{"2026-05-06", "振替休日"},
	{"2026-07-20", "海の日"},
	{"2026-08-11", "山の日"},
	{"2026-09-21", "敬老の日"},
	{"2026-09-22", "国民の休日"},
	{"2026-09-23", "秋分の日"},
	{"2026-10-12", "スポーツの日"},
	{"2026-11-03", "文化の日"},
	{"2026-11-23", "勤労感謝の日"},

	{"2027-01-01", "元日"},
	{"2027-01-11", "成人の日"},
	{"2027-02-11", "建国記念の日"},
	{"2027-02-23", "天皇誕生日"},
	{"2027-03-21", "春分の日"},
	{"2027-03-22", "振替休日"},
	{"2027-04-29", "昭和の日"},
	{"2027-05-03", "憲法記念日"},
	{"2027-05-04", "みどりの日"},
	{"2027-05-05", "こどもの日"},
	{"2027-07-19", "海の日"},
	{"2027-08-11", "山の日"},
	{"2027-09-20", "敬老の日"},
	{"2027-09-23", "秋分の日"},
	{"2027-10-11", "スポーツの日"},
	{"2027-11-03", "文化の日"},
	{"2027-11-23", "勤労感謝の日"},
}

// holidays is the table read once, in date order; holidayIndex finds a date in it.
var holidays, holidayIndex = func() ([]Holiday, map[string]int) {
	out := make([]Holiday, len(holidayTable))
	index := make(map[string]int, len(holidayTable))
	for i, h := range holidayTable {
		d, err := time.ParseInLocation(time.DateOnly, h.date, schema.Tokyo)
		if err != nil {
			panic("schema: holiday table: " + err.Error())
		}
		out[i] = Holiday{Date: d, Name: h.name}
		index[h.date] = i
	}
	if !sort.SliceIsSorted(out, func(i, j int) bool { return out[i].Date.Before(out[j].Date) }) {
		panic("schema: holiday table out of order")
	}
	return out, index
}()

// IsHoliday reports whether d's date in Tokyo is a public holiday. Outside the table (before 2024 or
// after HolidaysEnd) it is false.
func IsHoliday(d time.Time) bool {
	_, ok := holidayIndex[d.In(schema.Tokyo).Format(time.DateOnly)]
	return ok
}

// Holidays lists the table's holidays in date order (a copy).
func Holidays() []Holiday {
	return append([]Holiday(nil), holidays...)
}
