package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// tableResult is a result with long Japanese and English cells, as the stores and events data have.
func tableResult() *query.Result {
	return &query.Result{
		Dataset: &schema.Dataset{Name: "stores"},
		Columns: []query.Column{{Name: "store_id"}, {Name: "store_name"}, {Name: "category"}, {Name: "description"}},
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
	if err := Write(&natural, nil, res, Options{Format: FormatText}); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{200, 160, 120, 80, 60, 40, 30, 24} {
		var b bytes.Buffer
		if err := Write(&b, nil, res, Options{Format: FormatText, Width: width}); err != nil {
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
		if expanded := strings.HasPrefix(out, "-[ RECORD 1 ]"); expanded != (width <= 40) {
			t.Errorf("width %d: expanded %v, want %v:\n%s", width, expanded, width <= 40, out)
		}
		if width <= 40 {
			checkExpanded(t, width, res, table)
			continue
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

// checkExpanded checks a result shown one record per block: every line fits, the separators line up,
// and each record's "column | value" lines give back its column names and values.
func checkExpanded(t *testing.T, width int, res *query.Result, lines []string) {
	t.Helper()
	var records [][]string // per record, the text of each field, wrapped lines joined
	sep := -1
	for i, line := range lines {
		if w := twwidth.Width(line); w > width {
			t.Errorf("width %d: line %d is %d wide: %q", width, i, w, line)
		}
		if strings.HasPrefix(line, "-[ RECORD ") {
			records = append(records, nil)
			continue
		}
		key, value, ok := strings.Cut(line, " | ")
		if !ok || len(records) == 0 {
			t.Fatalf("width %d: line %d is not a field: %q", width, i, line)
		}
		if at := twwidth.Width(key); sep < 0 {
			sep = at
		} else if at != sep {
			t.Errorf("width %d: line %d has its separator at %d, not %d", width, i, at, sep)
		}
		r := &records[len(records)-1]
		if key = strings.TrimSpace(key); key != "" {
			if want := res.Columns[len(*r)].Name; key != want {
				t.Errorf("width %d: field %q, want %q", width, key, want)
			}
			*r = append(*r, value)
		} else {
			(*r)[len(*r)-1] += value
		}
	}
	if len(records) != len(res.Rows) {
		t.Fatalf("width %d: %d records, want %d", width, len(records), len(res.Rows))
	}
	for j, row := range res.Rows {
		for i, v := range row {
			want := "NULL"
			if s, ok := v.(string); ok {
				want = s
			}
			if got := records[j][i]; strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(want, " ", "") {
				t.Errorf("width %d: record %d %s is %q, want %q", width, j+1, res.Columns[i].Name, got, want)
			}
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
