package hours

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

type hoursCase struct {
	want  string // Hours.String, or "unknown"
	cell  string
	where string // file:line
}

func hoursCorpus(tb testing.TB, file string) []hoursCase {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []hoursCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		want, cell, ok := strings.Cut(line, "\t")
		if !ok || want == "" {
			tb.Fatalf("%s:%d: want the reading or unknown, a tab and the cell: %q", file, n, line)
		}
		out = append(out, hoursCase{want, strings.ReplaceAll(cell, `\n`, "\n"), fmt.Sprintf("%s:%d", file, n)})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// hoursScore is Read on a corpus: of the cells it reads, those read exactly right (precision);
// of the cells a person reads, those it reads exactly right (recall).
type hoursScore struct {
	cells, read, readable, right int
	misses                       []string
}

func (s hoursScore) precision() float64 { return ratio(s.right, s.read) }
func (s hoursScore) recall() float64    { return ratio(s.right, s.readable) }

// ratio is a/b, or 0 when b is 0: the corpora's precision and recall.
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func scoreHours(cases []hoursCase) hoursScore {
	var s hoursScore
	for _, c := range cases {
		s.cells++
		h, ok := Read(c.cell)
		got := "unknown"
		if ok {
			got = h.String()
			s.read++
		}
		if c.want != "unknown" {
			s.readable++
		}
		switch {
		case ok && got == c.want:
			s.right++
		case got != c.want:
			s.misses = append(s.misses, fmt.Sprintf("%s: %q\n\tgot  %s\n\twant %s", c.where, c.cell, got, c.want))
		}
	}
	return s
}

// TestHoursCorpus measures Read on the corpora and holds floors a little below what it reaches: a
// change to the rule that reads worse fails here. The cells it gets wrong are logged. hours.tsv was
// written with the rule, hours_blind.tsv after it: the second's figures are the honest ones.
func TestHoursCorpus(t *testing.T) {
	var all []hoursCase
	for _, file := range []string{"testdata/hours.tsv", "testdata/hours_blind.tsv", "testdata/hours_blind2.tsv"} {
		cases := hoursCorpus(t, file)
		all = append(all, cases...)
		s := scoreHours(cases)
		t.Logf("Read on the %d cells of %s: precision %.3f (%d/%d read right), recall %.3f (%d/%d readable read right)",
			s.cells, file, s.precision(), s.right, s.read, s.recall(), s.right, s.readable)
		for _, m := range s.misses {
			t.Log(m)
		}
	}
	s := scoreHours(all)
	t.Logf("Read on all %d cells: precision %.3f, recall %.3f", s.cells, s.precision(), s.recall())
	if s.cells < 150 {
		t.Errorf("the corpus has %d cells; it should have at least 150", s.cells)
	}
	// Reached: precision 1.000, recall 0.883 (hours_blind2.tsv alone: 1.000, 0.692).
	if p := s.precision(); p < 0.99 {
		t.Errorf("precision %.3f, below the floor 0.99", p)
	}
	if r := s.recall(); r < 0.86 {
		t.Errorf("recall %.3f, below the floor 0.86", r)
	}
}

// Every opening_hours cell of the sample data reads.
func TestReadHoursReadsTheSampleData(t *testing.T) {
	header, records := readSample(t, sampleDir+"/filtered_store_data_カテゴリー情報あり.csv")
	col := indexOf(header, "opening_hours")
	if col < 0 {
		t.Fatal("no opening_hours column")
	}
	n := 0
	for i, rec := range records {
		if rec[col] == "" {
			continue
		}
		n++
		if _, ok := Read(rec[col]); !ok {
			t.Errorf("record %d: not read: %s", i+1, rec[col])
		}
	}
	if n == 0 {
		t.Error("no opening_hours cell in the sample data")
	}
}

func TestReadHoursJSON(t *testing.T) {
	for _, tt := range []struct {
		cell, want string // want "" is not read
	}{
		{`{"monday": [{"open": "10:00", "close": "20:00"}], "tuesday": []}`, "mon 10:00-20:00; tue closed"},
		{`{"friday": [{"open": "18:00", "close": "02:00"}]}`, "fri 18:00-26:00"},  // after midnight
		{`{"friday": [{"open": "18:00", "close": "26:00"}]}`, "fri 18:00-26:00"},  // the same, as Japan writes it
		{`{"friday": [{"open": "24:00", "close": "26:00"}]}`, "fri 24:00-26:00"},  // Saturday 0:00-2:00, written on Friday
		{`{"monday": [{"open": "00:00", "close": "00:00"}]}`, "mon 00:00-24:00"},  // all day
		{`{"holiday": [{"open": "10:00", "close": "17:00"}]}`, "hol 10:00-17:00"}, // public holidays
		{`{"holiday": []}`, "hol closed"},                                         //
		{`{"sunday": [{"open": "17:00", "close": "22:00"}, {"open": "11:00", "close": "14:00"}]}`, "sun 11:00-14:00, 17:00-22:00"},
		{"\n\t {\"monday\": []}", "mon closed"},                                  // space before the brace
		{`{"monday": [{"open": "10:00", "close": "29:59"}]}`, "mon 10:00-29:59"}, //
		{`{"monday": [{"open": "10:00", "close": "30:00"}]}`, ""},                // past the notation
		{`{"monday": [{"open": "9:00", "close": "18:00"}]}`, ""},                 // not HH:MM
		{`{"monday": [{"open": "10:00"}]}`, ""},                                  // no close
		{`{"monday": [{"open": "10:00", "close": "20:00", "lo": "19:30"}]}`, ""}, // another key
		{`{"Monday": []}`, ""},                          // not a day key
		{`{"monday": null}`, ""},                        //
		{`{"monday": [null]}`, ""},                      //
		{`{"monday": [{"open": 10, "close": 20}]}`, ""}, //
		{`{}`, ""},                      // says nothing
		{`{"monday": []} trailing`, ""}, //
		{`{"monday": [{"open": "10:00", "close": "20:00"}]`, ""},  // cut short
		{`{"monday": [{"open": "26:00", "close": "02:00"}]}`, ""}, // closes before it opens
	} {
		h, ok := Read(tt.cell)
		if got := h.String(); ok != (tt.want != "") || got != tt.want {
			t.Errorf("Read(%q) = %q, %v; want %q", tt.cell, got, ok, tt.want)
		}
	}
}

// The readings of the text rule, one or more per kind of phrase.
func TestReadHoursText(t *testing.T) {
	const (
		week   = "mon 10:00-20:00; tue 10:00-20:00; wed 10:00-20:00; thu 10:00-20:00; fri 10:00-20:00; sat 10:00-20:00; sun 10:00-20:00"
		monFri = "mon 10:00-20:00; tue 10:00-20:00; wed 10:00-20:00; thu 10:00-20:00; fri 10:00-20:00"
	)
	for _, tt := range []struct {
		kind, cell, want string // want "" is not read
	}{
		// Times.
		{"time", "10:00-20:00", week},
		{"full width", "１０：００～２０：００", week},
		{"時", "10時〜20時", week},
		{"時分", "10時00分〜20時00分", week},
		{"半", "10時半〜19時半", strings.ReplaceAll(strings.ReplaceAll(week, "10:00", "10:30"), "20:00", "19:30")},
		{"am pm", "10am-8pm", week},
		{"a.m. p.m.", "10 a.m. - 8 p.m.", week},
		{"pm carried", "6-11pm", strings.ReplaceAll(strings.ReplaceAll(week, "10:00", "18:00"), "20:00", "23:00")},
		{"pm not carried", "10-8pm", week}, // 10 > 8: the morning
		{"午前 午後", "午前10時〜午後8時", week},
		{"AM prefix", "AM10:00〜PM8:00", week},
		{"正午", "正午〜20時", strings.ReplaceAll(week, "10:00", "12:00")},
		{"bare hours after days", "平日 10-20", monFri},
		{"bare hours alone", "10-20", ""},
		{"twelve-hour bare", "月〜金 9-5", ""},
		{"hour past 29", "10:00-30:00", ""},
		// Ranges.
		{"〜", "10:00〜20:00", week},
		{"～", "10:00～20:00", week},
		{"ー between digits", "10:00ー20:00", week},
		{"から まで", "10時から20時まで", week},
		{"to", "10am to 8pm", week},
		{"no start", "〜20:00", ""},
		{"no end", "10:00〜", ""},
		{"a time alone", "20時まで", ""},
		// Late night.
		{"翌", "10時〜翌2時", strings.ReplaceAll(week, "20:00", "26:00")},
		{"26:00", "10:00-26:00", strings.ReplaceAll(week, "20:00", "26:00")},
		{"close before open", "10:00-02:00", strings.ReplaceAll(week, "20:00", "26:00")},
		{"24:00-26:00", "金 24:00〜26:00", "fri 24:00-26:00"},
		{"24時間営業", "24時間営業", strings.ReplaceAll(strings.ReplaceAll(week, "10:00", "00:00"), "20:00", "24:00")},
		{"24/7", "24/7", strings.ReplaceAll(strings.ReplaceAll(week, "10:00", "00:00"), "20:00", "24:00")},
		// Days.
		{"平日", "平日 10:00-20:00", monFri},
		{"range", "月〜金 10:00-20:00", monFri},
		{"range with 曜日", "月曜日〜金曜日 10:00-20:00", monFri},
		{"English range", "Mon-Fri 10:00-20:00", monFri},
		{"range across Sunday", "金〜月 10:00-20:00", "mon 10:00-20:00; fri 10:00-20:00; sat 10:00-20:00; sun 10:00-20:00"},
		{"list", "月・水・金 10:00-20:00", "mon 10:00-20:00; wed 10:00-20:00; fri 10:00-20:00"},
		{"English list", "Sat & Sun 10:00-20:00", "sat 10:00-20:00; sun 10:00-20:00"},
		{"slash list", "Sat/Sun 10:00-20:00", "sat 10:00-20:00; sun 10:00-20:00"},
		{"土日祝", "土日祝 10:00-20:00", "sat 10:00-20:00; sun 10:00-20:00; hol 10:00-20:00"},
		{"祝日", "祝日 10:00-20:00", "hol 10:00-20:00"},
		{"毎日", "毎日 10:00-20:00", week},
		{"daily", "daily 10-20", week},
		{"days after", "10:00-20:00 daily", week},
		{"days after, English", "10am-8pm Mon-Fri", monFri},
		{"days named, others not", "土曜 10:00-20:00", "sat 10:00-20:00"},
		{"days with nothing", "平日 10:00-20:00 / 土日祝", ""},
		{"a default and named days", "10:00-20:00 / 日曜 10:00-18:00", strings.ReplaceAll(week, "sun 10:00-20:00", "sun 10:00-18:00")},
		// Several ranges.
		{"lunch and dinner", "月〜金 11:30-14:00, 17:30-22:00",
			"mon 11:30-14:00, 17:30-22:00; tue 11:30-14:00, 17:30-22:00; wed 11:30-14:00, 17:30-22:00; thu 11:30-14:00, 17:30-22:00; fri 11:30-14:00, 17:30-22:00"},
		{"overlapping", "10:00-20:00 / 11:00-19:00", ""},
		// Closed days.
		{"定休日 after", "10:00-20:00 定休日：日曜", strings.ReplaceAll(week, "sun 10:00-20:00", "sun closed")},
		{"定休 before", "日曜定休 10:00-20:00", strings.ReplaceAll(week, "sun 10:00-20:00", "sun closed")},
		{"休み", "10:00-20:00 土日祝休み", monFri + "; sat closed; sun closed; hol closed"},
		{"closed on", "Closed on Sundays. 10:00-20:00", strings.ReplaceAll(week, "sun 10:00-20:00", "sun closed")},
		{"bracketed heading", "【営業時間】10:00〜20:00【定休日】日曜日", strings.ReplaceAll(week, "sun 10:00-20:00", "sun closed")},
		{"定休日なし", "定休日：なし 10:00-20:00", week},
		{"no day", "10:00-20:00 年末年始休業", week},
		{"named and closed", "月〜土 10:00-20:00 定休日：土曜", ""},
		{"closed alone", "水曜定休", ""},
		// Breaks.
		{"休憩", "10:00-20:00（休憩 14:00-15:00）", strings.ReplaceAll(week, "10:00-20:00", "10:00-14:00, 15:00-20:00")},
		{"昼休み after", "月〜金 10:00-20:00（14:00〜15:00は昼休み）", strings.ReplaceAll(monFri, "10:00-20:00", "10:00-14:00, 15:00-20:00")},
		{"a break outside the hours", "10:00-20:00（休憩 21:00-22:00）", ""},
		{"closed for a while", "10:00-20:00 (closed 14:00-15:00)", ""},
		// One end changed.
		{"まで", "10:00-20:00（日曜は18:00まで）", strings.ReplaceAll(week, "sun 10:00-20:00", "sun 10:00-18:00")},
		{"open only", "10:00-20:00（土日 9:00〜）", strings.ReplaceAll(strings.ReplaceAll(week, "sat 10:00", "sat 09:00"), "sun 10:00", "sun 09:00")},
		{"〜 close", "10:00-20:00（金 〜22:00）", strings.ReplaceAll(week, "fri 10:00-20:00", "fri 10:00-22:00")},
		{"閉店", "10:00-20:00（祝日は18:00閉店）", week + "; hol 10:00-18:00"},
		{"with no every-day range", "日曜は18:00まで", ""},
		{"the bracket ends the days", "11:30-14:00（土日は〜15:00）17:30-22:00",
			"mon 11:30-14:00, 17:30-22:00; tue 11:30-14:00, 17:30-22:00; wed 11:30-14:00, 17:30-22:00; thu 11:30-14:00, 17:30-22:00; " +
				"fri 11:30-14:00, 17:30-22:00; sat 11:30-15:00, 17:30-22:00; sun 11:30-15:00, 17:30-22:00"},
		// Open and close named.
		{"OPEN CLOSE", "OPEN 10:00 / CLOSE 20:00", week},
		{"開店 閉店", "10時開店 20時閉店", week},
		{"open alone", "open 10:00", ""},
		// Days claiming the range before them.
		{"claimed", "11:30〜14:00（平日のみ）", strings.ReplaceAll(monFri, "10:00-20:00", "11:30-14:00")},
		{"claimed after まで", "10時から20時まで（年中無休）", week},
		{"claimed, then more", "11:30〜14:00（土日のみ）17:30〜22:00",
			"mon 17:30-22:00; tue 17:30-22:00; wed 17:30-22:00; thu 17:30-22:00; fri 17:30-22:00; sat 11:30-14:00, 17:30-22:00; sun 11:30-14:00, 17:30-22:00"},
		{"not claimed: more is said", "10:00-20:00（土日は通し営業）", ""},
		// Last order.
		{"L.O.", "10:00-20:00 (L.O. 19:30)", week},
		{"L.O. after", "10:00-20:00 (19:30 L.O.)", week},
		{"ラストオーダー", "10:00-20:00 ラストオーダー19:30", week},
		{"最終入館", "10:00-20:00（最終入館19:30）", week},
		// Not read.
		{"不定休", "10:00-20:00 不定休", ""},
		{"sold out", "11:00〜売り切れ次第終了", ""},
		{"season", "季節により変動", ""},
		{"nth weekday", "10:00-20:00 第3水曜定休", ""},
		{"date", "10:00-20:00 (12/31は17:00まで)", ""},
		{"month", "4月〜9月 10:00-20:00", ""},
		{"祝前日", "金・祝前日 10:00-22:00", ""},

		{"empty", "", ""},
		{"no range", "営業中", ""},
	} {
		h, ok := Read(tt.cell)
		if got := h.String(); ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: Read(%q) = %q, %v; want %q", tt.kind, tt.cell, got, ok, tt.want)
		}
	}
}

func TestHoursString(t *testing.T) {
	for _, tt := range []struct {
		h    Hours
		want string
	}{
		{Hours{}, ""},
		{Hours{Spans: []Span{{Day: 4, Open: 18 * 60, Close: 26 * 60}}}, "fri 18:00-26:00"},
		{Hours{Spans: []Span{{Day: 0, Open: 690, Close: 840}, {Day: 0, Open: 1050, Close: 1320}}, Closed: [8]bool{1: true, HolidayDay: true}},
			"mon 11:30-14:00, 17:30-22:00; tue closed; hol closed"},
		{Hours{Spans: []Span{{Day: HolidayDay, Open: 0, Close: 1440}}}, "hol 00:00-24:00"},
	} {
		if got := tt.h.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.h, got, tt.want)
		}
	}
}

// A cell past maxHoursText is not read, even when its start is hours: the rest could change them.
func TestReadHoursBound(t *testing.T) {
	if _, ok := Read("10:00-20:00 " + strings.Repeat("あ", maxHoursText)); ok {
		t.Error("a cell past the bound was read")
	}
	if _, ok := Read("10:00-20:00 " + strings.Repeat(" ", maxHoursText-20)); !ok {
		t.Error("a cell within the bound was not read")
	}
}

// FuzzReadHours: any bytes (cells are the data's) read without a panic, the same each time; what is
// read is normalised and bounded.
func FuzzReadHours(f *testing.F) {
	for _, c := range hoursCorpus(f, "testdata/hours.tsv") {
		f.Add(c.cell)
	}
	f.Add("\xe6\x9c\x88\xe3\x80")
	f.Add("月〜〜金 - - 10:00 〜 〜 翌翌2時")
	f.Fuzz(func(t *testing.T, cell string) {
		h, ok := Read(cell)
		again, ok2 := Read(cell)
		if ok != ok2 || h.String() != again.String() {
			t.Fatalf("Read(%q) is %q, %v, then %q, %v", cell, h, ok, again, ok2)
		}
		if !ok {
			if len(h.Spans) != 0 || h.Closed != [8]bool{} {
				t.Fatalf("Read(%q) is not read but says %q", cell, h)
			}
			return
		}
		for i, s := range h.Spans {
			switch {
			case s.Day < 0 || s.Day > HolidayDay:
				t.Fatalf("Read(%q): day %d", cell, s.Day)
			case s.Open < 0 || s.Open > latestOpen || s.Close <= s.Open || s.Close > s.Open+24*60:
				t.Fatalf("Read(%q): span %+v not normalised", cell, s)
			case h.Closed[s.Day]:
				t.Fatalf("Read(%q): %s is closed and open", cell, dayNames[s.Day])
			case i > 0 && (s.Day < h.Spans[i-1].Day || s.Day == h.Spans[i-1].Day && s.Open < h.Spans[i-1].Open):
				t.Fatalf("Read(%q): spans out of order: %+v", cell, h.Spans)
			}
		}
		if len(h.Spans) == 0 && h.Closed == [8]bool{} {
			t.Fatalf("Read(%q) is read but says nothing", cell)
		}
	})
}

func BenchmarkReadHours(b *testing.B) {
	for _, bb := range []struct{ name, cell string }{
		{"text", "月〜金 11:30-14:00, 17:30-22:00（L.O.21:30）／土日祝 11:30〜22:00 ※年末年始は休業"},
		{"json", `{"monday": [{"open": "11:30", "close": "14:00"}, {"open": "17:30", "close": "22:00"}], "tuesday": [{"open": "11:30", "close": "14:00"}, {"open": "17:30", "close": "22:00"}], "wednesday": [], "thursday": [{"open": "11:30", "close": "14:00"}, {"open": "17:30", "close": "22:00"}], "friday": [{"open": "11:30", "close": "14:00"}, {"open": "17:30", "close": "26:00"}], "saturday": [{"open": "11:30", "close": "26:00"}], "sunday": [{"open": "11:30", "close": "21:00"}]}`},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := Read(bb.cell); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}
