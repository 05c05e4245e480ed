package hours

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/schema"
)

func TestIsHoliday(t *testing.T) {
	utc := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	date := func(s string) time.Time {
		d, err := time.ParseInLocation(time.DateOnly, s, schema.Tokyo)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tt := range []struct {
		d    time.Time
		want bool
	}{
		{date("2024-02-12"), true},  // 振替休日 for 建国記念の日 on a Sunday
		{date("2024-09-22"), true},  // 秋分の日 on the 22nd
		{date("2025-02-24"), true},  // 振替休日 for 天皇誕生日
		{date("2025-11-24"), true},  // 振替休日 for 勤労感謝の日
		{date("2026-05-06"), true},  // 振替休日 for 憲法記念日 on a Sunday, after 5/4 and 5/5
		{date("2026-09-22"), true},  // 国民の休日 between 敬老の日 and 秋分の日
		{date("2027-03-21"), true},  // 春分の日 on a Sunday
		{date("2027-03-22"), true},  // its 振替休日
		{date("2027-07-19"), true},  // 海の日: the third Monday of July
		{date("2026-12-23"), false}, // 天皇誕生日 until 2018, no longer
		{date("2026-05-07"), false},
		{date("2025-09-22"), false}, // 2025's 秋分の日 is the 23rd
		{date("2027-03-20"), false},
		{date("2027-05-06"), false},          // 2027's golden week has no substitute
		{date("2023-01-01"), false},          // before the table
		{date("2028-01-01"), false},          // after it
		{utc("2025-12-31T15:00:00Z"), true},  // 2026-01-01 00:00 in Tokyo
		{utc("2026-01-01T15:00:00Z"), false}, // 2026-01-02 00:00 in Tokyo
	} {
		if got := IsHoliday(tt.d); got != tt.want {
			t.Errorf("IsHoliday(%s) = %v, want %v", tt.d.Format(time.RFC3339), got, tt.want)
		}
	}
}

// The table against the law (国民の祝日に関する法律): the Happy Monday days fall on their Mondays, the
// fixed days on their dates, the equinoxes in their weeks, every holiday on a Sunday has its 振替休日,
// and a weekday between two holidays is a 国民の休日; nothing else is listed.
func TestHolidayTableFollowsTheLaw(t *testing.T) {
	fixed := map[string]string{"元日": "01-01", "建国記念の日": "02-11", "天皇誕生日": "02-23", "昭和の日": "04-29",
		"憲法記念日": "05-03", "みどりの日": "05-04", "こどもの日": "05-05", "山の日": "08-11", "文化の日": "11-03",
		"勤労感謝の日": "11-23"}
	monday := map[string]struct {
		month time.Month
		nth   int
	}{"成人の日": {time.January, 2}, "海の日": {time.July, 3}, "敬老の日": {time.September, 3}, "スポーツの日": {time.October, 2}}
	equinox := map[string]string{"春分の日": "03-", "秋分の日": "09-"}

	national := map[string]bool{} // the 国民の祝日 themselves
	perYear := map[int]int{}
	list := Holidays()
	for _, h := range list {
		if h.Date.Location() != schema.Tokyo || h.Date.Hour() != 0 {
			t.Errorf("%s: not midnight in Tokyo", h.Date)
		}
		md := h.Date.Format("01-02")
		switch want, isFixed := fixed[h.Name]; {
		case isFixed:
			if md != want {
				t.Errorf("%s %s: want %s", h.Date.Format(time.DateOnly), h.Name, want)
			}
		case monday[h.Name].nth > 0:
			m := monday[h.Name]
			if h.Date.Weekday() != time.Monday || h.Date.Month() != m.month || (h.Date.Day()-1)/7+1 != m.nth {
				t.Errorf("%s %s: not Monday number %d of %s", h.Date.Format(time.DateOnly), h.Name, m.nth, m.month)
			}
		case equinox[h.Name] != "":
			if !strings.HasPrefix(md, equinox[h.Name]) || h.Date.Day() < 19 || h.Date.Day() > 24 {
				t.Errorf("%s %s: not an equinox day", h.Date.Format(time.DateOnly), h.Name)
			}
		case h.Name == "振替休日" || h.Name == "国民の休日":
			continue
		default:
			t.Errorf("%s: unknown name %q", h.Date.Format(time.DateOnly), h.Name)
		}
		national[h.Date.Format(time.DateOnly)] = true
		perYear[h.Date.Year()]++
	}
	for y := holidaysStart.Year(); y <= HolidaysEnd.Year(); y++ {
		if perYear[y] != 16 {
			t.Errorf("%d has %d 国民の祝日, want 16", y, perYear[y])
		}
	}

	// The days the law adds, from the 国民の祝日.
	want := map[string]string{}
	for d := holidaysStart; !d.After(HolidaysEnd); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		if national[key] && d.Weekday() == time.Sunday {
			next := d.AddDate(0, 0, 1)
			for national[next.Format(time.DateOnly)] {
				next = next.AddDate(0, 0, 1)
			}
			want[next.Format(time.DateOnly)] = "振替休日"
		}
		if !national[key] && d.Weekday() != time.Sunday &&
			national[d.AddDate(0, 0, -1).Format(time.DateOnly)] && national[d.AddDate(0, 0, 1).Format(time.DateOnly)] {
			want[key] = "国民の休日"
		}
	}
	got := map[string]string{}
	for _, h := range list {
		if h.Name == "振替休日" || h.Name == "国民の休日" {
			got[h.Date.Format(time.DateOnly)] = h.Name
		}
	}
	for d, name := range want {
		if got[d] != name {
			t.Errorf("%s should be a %s; the table has %q", d, name, got[d])
		}
	}
	for d, name := range got {
		if want[d] != name {
			t.Errorf("%s is listed as a %s, which the law does not make it", d, name)
		}
	}
}

// TestHolidayTableCoversTheData fails when the sample data's dates, or today in Tokyo, come near the
// end of the holiday table: is_open on a holiday would then read a holiday as a weekday.
func TestHolidayTableCoversTheData(t *testing.T) {
	const extend = "extend schema/hours/holidays.go from 内閣府「国民の祝日について」 (https://www8.cao.go.jp/chosei/shukujitsu/syukujitsu.csv) and move HolidaysEnd"
	check := func(where, s string) {
		t.Helper()
		d, err := time.ParseInLocation(time.DateOnly, s, schema.Tokyo)
		if err != nil {
			t.Errorf("%s: %q is not a date", where, s)
			return
		}
		if d.Before(holidaysStart) || d.After(HolidaysEnd) {
			t.Errorf("%s: %s is outside the holiday table (%s to %s): %s", where, s,
				holidaysStart.Format(time.DateOnly), HolidaysEnd.Format(time.DateOnly), extend)
		}
	}
	n := 0
	header, records := readSample(t, sampleDir+"/events.csv")
	col := indexOf(header, "date_time")
	if col < 0 {
		t.Fatal("events.csv has no date_time column")
	}
	for i, rec := range records {
		for _, d := range strings.Split(rec[col], "/") { // "2025-09-17" or "2025-09-17/2025-10-19"
			if d != "" {
				check("events.csv record "+strconv.Itoa(i+1), d)
				n++
			}
		}
	}
	header, records = readSample(t, sampleDir+"/filtered_store_data_カテゴリー情報あり.csv")
	col = indexOf(header, "irregular_closures")
	if col < 0 {
		t.Fatal("the stores file has no irregular_closures column")
	}
	for i, rec := range records {
		if rec[col] == "" {
			continue
		}
		var closures []struct{ Date string }
		if err := json.Unmarshal([]byte(rec[col]), &closures); err != nil {
			t.Errorf("stores record %d: irregular_closures: %v", i+1, err)
			continue
		}
		for _, c := range closures {
			check("stores record "+strconv.Itoa(i+1), c.Date)
			n++
		}
	}
	if n == 0 {
		t.Error("no dates in the sample data: the check is vacuous")
	}
	if today, last := time.Now().In(schema.Tokyo), HolidaysEnd.AddDate(0, 0, -30); today.After(last) {
		t.Errorf("today (%s in Tokyo) is within 30 days of the holiday table's end (%s): %s",
			today.Format(time.DateOnly), HolidaysEnd.Format(time.DateOnly), extend)
	}
}
