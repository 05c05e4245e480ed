package textout

import (
	"fmt"
	"strings"
	"testing"
)

func TestColumnWidths(t *testing.T) {
	tests := []struct {
		natural []int
		avail   int
		want    []int
	}{
		{[]int{8, 20, 6}, 40, []int{8, 20, 6}},   // fits: unchanged
		{[]int{8, 20, 6}, 34, []int{8, 20, 6}},   // exactly
		{[]int{8, 20, 6}, 30, []int{8, 16, 6}},   // only the widest narrows
		{[]int{8, 30, 30}, 40, []int{8, 16, 16}}, // two wide columns share equally
		{[]int{8, 30, 30}, 41, []int{8, 17, 16}}, // the odd column goes to the first
		{[]int{10, 10, 10}, 12, []int{4, 4, 4}},
		{[]int{10, 10, 10}, 3, []int{2, 2, 2}}, // never below one wide character
		{[]int{1, 50}, 10, []int{1, 9}},        // a one-column-wide column stays so
	}
	for _, tt := range tests {
		if got := columnWidths(tt.natural, tt.avail); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("columnWidths(%v, %d) = %v, want %v", tt.natural, tt.avail, got, tt.want)
		}
	}
}

func TestWrapCell(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string // lines joined by |
	}{
		{"short", 10, "short"},
		{"the quick brown fox", 10, "the quick|brown fox"},
		{"the quick brown fox", 9, "the quick|brown fox"},
		{"abcdefghij", 4, "abcd|efgh|ij"},        // no space: hard breaks
		{"a verylongword", 8, "a verylo|ngword"}, // a space too early to break at
		{"麻布台ヒルズマーケット", 8, "麻布台ヒ|ルズマー|ケット"},      // wide characters: 2 columns each
		{"麻布台ヒルズマーケット", 7, "麻布台|ヒルズ|マーケ|ット"},     // an odd width leaves a column free
		{"中村藤吉 麻布台ヒルズ店", 10, "中村藤吉|麻布台ヒル|ズ店"},
		{"ab麻布", 3, "ab|麻|布"},
		{"麻布", 1, "麻|布"},                           // wider than the column: a line of its own
		{"e\u0301te\u0301", 2, "e\u0301t|e\u0301"}, // combining marks stay with their letter
	}
	for _, tt := range tests {
		got := strings.ReplaceAll(wrapCell(tt.s, tt.width), "\n", "|")
		if got != tt.want {
			t.Errorf("wrapCell(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

func TestFit(t *testing.T) {
	wide := make([]string, 30) // SELECT * FROM stores: many columns of long text
	for i := range wide {
		wide[i] = fmt.Sprintf("column_%d", i)
	}
	tests := []struct {
		name           string
		header         []string
		rows           [][]string
		width          int
		wrapped, expan bool
	}{
		{"no terminal", wide, [][]string{wide}, 0, false, false},
		{"fits", []string{"id", "name"}, [][]string{{"1", "麻布台"}}, 80, false, false},
		{"narrowed and wrapped", []string{"id", "address"}, [][]string{{"1", "東京都港区麻布台1-3-1 麻布台ヒルズ タワープラザ 3F"}}, 40, true, false},
		{"too many columns", wide, [][]string{wide}, 80, false, true},
		{"a column left too narrow", []string{"id", "a", "b"}, [][]string{{"STR-0001", strings.Repeat("x", 40), strings.Repeat("y", 40)}}, 34, false, true},
	}
	for _, tt := range tests {
		f := Fit(tt.header, tt.rows, tt.width)
		if f.Wrapped != tt.wrapped || f.Expanded != tt.expan {
			t.Errorf("%s: wrapped %v, expanded %v; want %v, %v", tt.name, f.Wrapped, f.Expanded, tt.wrapped, tt.expan)
		}
		if !tt.wrapped && (fmt.Sprint(f.Header) != fmt.Sprint(tt.header) || fmt.Sprint(f.Rows) != fmt.Sprint(tt.rows)) {
			t.Errorf("%s: changed the table: %q %q", tt.name, f.Header, f.Rows)
		}
	}
}

func TestWriteExpanded(t *testing.T) {
	header := []string{"store_id", "store_name", "x"}
	rows := [][]string{
		{"STR-0001", "麻布台ヒルズマーケット", ""},
		{"STR-0002", "A rooftop restaurant with a view of Tokyo Tower", "NULL"},
	}
	var b strings.Builder
	if err := WriteExpanded(&b, header, rows, 30); err != nil {
		t.Fatal(err)
	}
	want := `-[ RECORD 1 ]-----------------
store_id   | STR-0001
store_name | 麻布台ヒルズマー
           | ケット
x          |
-[ RECORD 2 ]-----------------
store_id   | STR-0002
store_name | A rooftop
           | restaurant with a
           | view of Tokyo
           | Tower
x          | NULL
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteExpanded(&b, []string{"a_long_column_name", "b"}, [][]string{{"1", "2"}}, 80)
	if want := "-[ RECORD 1 ]------+--\na_long_column_name | 1\nb                  | 2\n"; b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
