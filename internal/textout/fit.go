package textout

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/rivo/uniseg"
)

// minColumn is the narrowest a fitted column gets: one wide (East Asian) character.
const minColumn = 2

// readableColumn is the narrowest a column is wrapped to before the table is shown expanded instead:
// five wide characters, or a short word a line.
const readableColumn = 10

// Fitted is a table fitted to a terminal.
type Fitted struct {
	Header []string
	Rows   [][]string
	// Wrapped: a cell spans lines, and rows need lines between them to be told apart.
	Wrapped bool
	// Expanded: the columns cannot get a readable width; show one record per block (WriteExpanded)
	// with Header and Rows as they were given.
	Expanded bool
}

// Fit narrows the columns of a box table (borders "│ a │ b │") so it is at most width display columns
// wide, and wraps the header and cells to the narrowed columns; when a column would be narrowed below
// a readable width, it leaves the table as it is and says to expand it. Widths are measured as
// tablewriter measures them, so East Asian wide characters keep the columns aligned. width 0 does not fit.
func Fit(header []string, rows [][]string, width int) Fitted {
	n := len(header)
	if width <= 0 || n == 0 {
		return Fitted{Header: header, Rows: rows}
	}
	natural := make([]int, n)
	for i, h := range header {
		natural[i] = twwidth.Width(h)
	}
	for _, r := range rows {
		for i, c := range r {
			natural[i] = max(natural[i], twwidth.Width(c))
		}
	}
	widths := columnWidths(natural, width-(3*n+1))
	for i, w := range widths {
		if w < natural[i] && w < readableColumn {
			return Fitted{Header: header, Rows: rows, Expanded: true}
		}
	}
	f := Fitted{Header: make([]string, n), Rows: make([][]string, len(rows))}
	for i, h := range header {
		f.Header[i] = wrapCell(h, widths[i])
		f.Wrapped = f.Wrapped || strings.Contains(f.Header[i], "\n")
	}
	for j, r := range rows {
		f.Rows[j] = make([]string, len(r))
		for i, c := range r {
			f.Rows[j][i] = wrapCell(c, widths[i])
			f.Wrapped = f.Wrapped || strings.Contains(f.Rows[j][i], "\n")
		}
	}
	return f
}

// columnWidths shares avail display columns among columns of the given natural widths: narrow columns
// keep theirs and the wide ones get an equal cap, the largest that fits ("water filling"); what the cap
// leaves over goes to the first wide columns. No column gets less than minColumn, so a terminal too
// narrow for that many columns gets a table wider than itself.
func columnWidths(natural []int, avail int) []int {
	total := 0
	for _, w := range natural {
		total += w
	}
	widths := append([]int(nil), natural...)
	if total <= avail {
		return widths
	}
	limit := minColumn
	for c := minColumn; ; c++ {
		sum, grows := 0, false
		for _, w := range natural {
			sum += min(w, c)
			grows = grows || w > c
		}
		if sum > avail || !grows {
			break
		}
		limit = c
	}
	used := 0
	for i, w := range natural {
		widths[i] = min(w, limit)
		if natural[i] < minColumn {
			widths[i] = natural[i]
		}
		used += widths[i]
	}
	for i := range widths {
		if used >= avail {
			break
		}
		if natural[i] > widths[i] {
			widths[i]++
			used++
		}
	}
	return widths
}

// wrapCell breaks s into lines of at most width display columns, at a space in the second half of the
// line when there is one (Japanese text has none, and breaks between any two characters). A character
// wider than width gets a line of its own.
func wrapCell(s string, width int) string {
	if twwidth.Width(s) <= width {
		return s
	}
	var lines []string
	var line strings.Builder
	lineWidth, lastSpace := 0, -1 // lastSpace: byte offset in line of the last space, -1 if none
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cluster := g.Str()
		w := twwidth.Width(cluster)
		if lineWidth+w > width && lineWidth > 0 {
			text := line.String()
			if cluster != " " && lastSpace > 0 && twwidth.Width(text[:lastSpace]) >= width/2 {
				// Carry the word begun after the space over to the next line.
				lines = append(lines, text[:lastSpace])
				text = text[lastSpace+1:]
			} else {
				lines = append(lines, strings.TrimRight(text, " "))
				text = ""
			}
			line.Reset()
			line.WriteString(text)
			lineWidth, lastSpace = twwidth.Width(text), -1
			if cluster == " " && text == "" {
				continue
			}
		}
		if cluster == " " {
			lastSpace = line.Len()
		}
		line.WriteString(cluster)
		lineWidth += w
	}
	if line.Len() > 0 {
		lines = append(lines, line.String())
	}
	return strings.Join(lines, "\n")
}

// WriteExpanded writes a table one record per block, as psql's expanded display does: a
// "-[ RECORD n ]" line, then a "column | value" line per field, values wrapped to the width left.
func WriteExpanded(w io.Writer, header []string, rows [][]string, width int) error {
	keyWidth := 0
	for _, h := range header {
		keyWidth = max(keyWidth, twwidth.Width(h))
	}
	valueWidth := max(width-keyWidth-3, readableColumn)
	// Each field's value as lines; every record's title line is as wide as the widest field line.
	values := make([][][]string, len(rows))
	widest := 0
	for j, r := range rows {
		values[j] = make([][]string, len(header))
		for i := range header {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			values[j][i] = strings.Split(wrapCell(cell, valueWidth), "\n")
			for _, l := range values[j][i] {
				widest = max(widest, twwidth.Width(l))
			}
		}
	}
	var b strings.Builder
	for j := range rows {
		b.WriteString(recordLine(j+1, keyWidth, keyWidth+3+widest))
		for i, h := range header {
			for k, l := range values[j][i] {
				key := ""
				if k == 0 {
					key = h
				}
				line := key + strings.Repeat(" ", keyWidth-twwidth.Width(key)) + " | " + l
				b.WriteString(strings.TrimRight(line, " ") + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// recordLine is a record's title line, "-[ RECORD 3 ]-+------", total columns wide, with a + above the
// separator of the key and value when the title leaves room for it.
func recordLine(n, keyWidth, total int) string {
	title := fmt.Sprintf("-[ RECORD %d ]", n)
	line := title
	if len(title) <= keyWidth {
		line += strings.Repeat("-", keyWidth-len(title)+1) + "+"
	}
	if len(line) < total {
		line += strings.Repeat("-", total-len(line))
	}
	return line + "\n"
}
