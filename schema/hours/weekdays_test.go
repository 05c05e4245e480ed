package hours

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The phrases the rule was written for, each read exactly.
func TestEventWeekdays(t *testing.T) {
	const (
		weekend   = "saturday,sunday"
		workweek  = "monday,tuesday,wednesday,thursday,friday"
		notMonday = "tuesday,wednesday,thursday,friday,saturday,sunday"
	)
	for _, tc := range []struct {
		texts []string
		want  string // comma-separated, "" for nil
	}{
		{[]string{"毎週土曜"}, "saturday"},
		{[]string{"毎週土曜日"}, "saturday"},
		{[]string{"毎週月・木"}, "monday,thursday"},
		{[]string{"毎週土日"}, weekend},
		{[]string{"土日のみ"}, weekend},
		{[]string{"土日祝のみ"}, weekend},
		{[]string{"週末限定"}, weekend},
		{[]string{"平日のみ"}, workweek},
		{[]string{"月曜休館"}, notMonday},
		{[]string{"月曜定休"}, notMonday},
		{[]string{"休館日：月曜"}, notMonday},
		{[]string{"Sundays only"}, "sunday"},
		{[]string{"every Saturday"}, "saturday"},
		{[]string{"weekends only"}, weekend},
		{[]string{"weekdays only"}, workweek},
		{[]string{"closed on Mondays"}, notMonday},
		{[]string{"Saturdays and Sundays"}, weekend},
		{[]string{"ＳＵＮＤＡＹＳ　ＯＮＬＹ"}, "sunday"},
		{[]string{"9月27日（土）"}, ""},
		{[]string{"10/4(土)・10/5(日)"}, ""},
		{[]string{"土日祝は混雑"}, ""},
		{[]string{"毎日"}, ""},
		{[]string{""}, ""},
		{nil, ""},
		// Texts are read apart, and their days joined.
		{[]string{"朝市", "毎週土曜開催", "月曜休館"}, "saturday"},
		{[]string{"毎週", "土曜"}, ""},
		{[]string{"毎週土曜", "毎週日曜"}, weekend},
		{[]string{"毎日開催", "月曜休館"}, notMonday},
	} {
		got := strings.Join(EventWeekdays(tc.texts...), ",")
		if got != tc.want {
			t.Errorf("EventWeekdays(%q) = %q, want %q", tc.texts, got, tc.want)
		}
	}
}

type weekdayCase struct {
	want, text, where string
}

func weekdayCorpus(tb testing.TB, file string) []weekdayCase {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []weekdayCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		want, text, ok := strings.Cut(line, "\t")
		if !ok || text == "" {
			tb.Fatalf("%s:%d: want the weekdays or -, a tab and the text: %q", file, n, line)
		}
		if want == "-" {
			want = ""
		}
		for _, d := range strings.Split(want, ",") {
			if want != "" && !slices.Contains(weekdayWords, d) {
				tb.Fatalf("%s:%d: %q is not a weekday", file, n, d)
			}
		}
		out = append(out, weekdayCase{want, strings.ReplaceAll(text, `\n`, "\n"), fmt.Sprintf("%s:%d", file, n)})
	}
	return out
}

// weekdayScores measures EventWeekdays on cases. A text that names weekdays is read right only with
// exactly its days: precision is the share of the texts given days whose days are right, recall the
// share of the texts that name days read right.
func weekdayScores(t *testing.T, file string, cases []weekdayCase) (precision, recall float64) {
	var said, saidRight, named, namedRight, none, noneRight int
	for _, c := range cases {
		got := strings.Join(EventWeekdays(c.text), ",")
		if got != "" {
			said++
		}
		if c.want != "" {
			named++
		} else {
			none++
		}
		switch {
		case got == c.want && got != "":
			saidRight++
			namedRight++
		case got == c.want:
			noneRight++
		default:
			t.Logf("%s: %q: %q, want %q", c.where, c.text, got, c.want)
		}
	}
	precision = float64(saidRight) / float64(max(said, 1))
	recall = float64(namedRight) / float64(max(named, 1))
	t.Logf("EventWeekdays on the %d cells of %s: %d name weekdays, %d do not; precision %.3f (%d/%d), "+
		"recall %.3f (%d/%d), nil right %d/%d", len(cases), file, named, none, precision, saidRight, said,
		recall, namedRight, named, noneRight, none)
	return precision, recall
}

// TestWeekdaysCorpus holds EventWeekdays to its floors on the corpus it was written with, and on one
// written after it.
func TestWeekdaysCorpus(t *testing.T) {
	var all []weekdayCase
	for _, file := range []string{"testdata/weekdays.tsv", "testdata/weekdays_blind.tsv"} {
		cases := weekdayCorpus(t, file)
		weekdayScores(t, file, cases)
		all = append(all, cases...)
	}
	var named int
	for _, c := range all {
		if c.want != "" {
			named++
		}
	}
	if len(all) < 200 || named < 80 || len(all)-named < 80 {
		t.Errorf("the corpus has %d cells, %d with weekdays; it should have 200, 80 with and 80 without", len(all), named)
	}
	if precision, recall := weekdayScores(t, "both", all); precision < 0.95 || recall < 0.9 {
		t.Errorf("precision %.3f, recall %.3f: below the floors 0.95 and 0.9", precision, recall)
	}
}

// Every text is read, in time linear in the bound: the answer is days in order, never all seven.
func FuzzEventWeekdays(f *testing.F) {
	for _, c := range weekdayCorpus(f, "testdata/weekdays.tsv") {
		f.Add(c.text, "")
	}
	f.Add("毎週"+strings.Repeat("土・", 3000)+"日", "月曜休館")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := EventWeekdays(a, b)
		if len(got) == 7 {
			t.Errorf("EventWeekdays(%q, %q) = every day, want nil", a, b)
		}
		last := -1
		for _, d := range got {
			i := slices.Index(weekdayWords, d)
			if i <= last {
				t.Fatalf("EventWeekdays(%q, %q) = %q: not weekdays in order", a, b, got)
			}
			last = i
		}
		if utf8.ValidString(a) && utf8.ValidString(b) && !slices.Equal(got, EventWeekdays(b, a)) {
			t.Errorf("EventWeekdays(%q, %q) = %q, but %q in the other order", a, b, got, EventWeekdays(b, a))
		}
	})
}
