package query

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
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

// tableResult is a result with long Japanese and English cells, as the stores and events data have.
func tableResult() *Result {
	return &Result{
		Dataset: &schema.Dataset{Name: "stores"},
		Columns: []Column{{Name: "store_id"}, {Name: "store_name"}, {Name: "category"}, {Name: "description"}},
		Rows: [][]any{
			{"STR-0001", "麻布台ヒルズマーケット", "retail", "食料品や日用品を扱う、麻布台ヒルズの中心にあるマーケットです。"},
			{"STR-0002", "バルコニー バイ シックス", "restaurant", "A rooftop restaurant with a view of Tokyo Tower"},
			{"STR-0003", "中村藤吉 麻布台ヒルズ店", "cafe", nil},
		},
	}
}

// TestWriteTableFits renders a table for terminals of many widths: every line fits, the columns stay
// aligned (each line has its borders at the same display columns), and no text is lost.
func TestWriteTableFits(t *testing.T) {
	res := tableResult()
	var natural bytes.Buffer
	if err := Write(&natural, nil, FormatTable, res); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{200, 160, 120, 80, 60, 40, 30, 24} {
		var b bytes.Buffer
		if err := WriteTable(&b, res, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if width >= 160 && out != natural.String() {
			t.Errorf("width %d: a table that fits must be left as it is:\n%s\nwant\n%s", width, out, natural.String())
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		table, footer := lines[:len(lines)-1], lines[len(lines)-1]
		if footer != "(3 rows)" {
			t.Errorf("width %d: footer %q", width, footer)
		}
		var borders []int
		for i, line := range table {
			if w := twwidth.Width(line); w > width {
				t.Errorf("width %d: line %d is %d wide: %q", width, i, w, line)
			}
			at := borderColumns(line)
			if i == 0 {
				borders = at
			} else if fmt.Sprint(at) != fmt.Sprint(borders) {
				t.Errorf("width %d: line %d has borders at %v, the first line at %v:\n%s", width, i, at, borders, out)
			}
		}
		for _, row := range res.Rows {
			for _, v := range row {
				if s, ok := v.(string); ok && !strings.Contains(cellsText(table), strings.ReplaceAll(s, " ", "")) {
					t.Errorf("width %d: %q is not in the table:\n%s", width, s, out)
				}
			}
		}
		if width < 120 && !strings.Contains(out, "├") {
			t.Errorf("width %d: wrapped rows want lines between them:\n%s", width, out)
		}
	}
}

// borderColumns lists the display columns of a table line's vertical borders and junctions.
func borderColumns(line string) []int {
	var at []int
	col := 0
	for _, r := range line {
		if strings.ContainsRune("│┌┬┐├┼┤└┴┘", r) {
			at = append(at, col)
		}
		col += twwidth.Width(string(r))
	}
	return at
}

// cellsText is the table's cell text read column by column down each row, without spaces: wrapped
// cells read as the text they came from.
func cellsText(table []string) string {
	var cols []strings.Builder
	var all strings.Builder
	flush := func() {
		for i := range cols {
			all.WriteString(cols[i].String() + "\x00")
		}
		cols = nil
	}
	for _, line := range table {
		if !strings.HasPrefix(line, "│") {
			flush()
			continue
		}
		parts := strings.Split(strings.Trim(line, "│"), "│")
		if cols == nil {
			cols = make([]strings.Builder, len(parts))
		}
		for i, p := range parts {
			cols[i].WriteString(strings.ReplaceAll(p, " ", ""))
		}
	}
	flush()
	return all.String()
}
