package query

import (
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/rivo/uniseg"
)

// minColumn is the narrowest a fitted column gets: one wide (East Asian) character.
const minColumn = 2

// WriteTable renders res as a table for a terminal width columns wide: when the table is wider, the widest
// columns are narrowed and their cells wrapped, so that every line of the table fits. width 0 does not fit.
func WriteTable(out io.Writer, res *Result, width int) error {
	return writeTable(out, false, res, width)
}

// fitTable narrows the columns of a box table (borders "│ a │ b │") so it is at most width display
// columns wide, and wraps the header and cells to the narrowed columns. wrapped says whether any cell
// now spans lines, when rows need lines between them to be told apart. Widths are measured as
// tablewriter measures them, so East Asian wide characters keep the columns aligned.
func fitTable(header []string, rows [][]string, width int) (fitHeader []string, fitRows [][]string, wrapped bool) {
	n := len(header)
	if width <= 0 || n == 0 {
		return header, rows, false
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
	fitHeader = make([]string, n)
	for i, h := range header {
		fitHeader[i] = wrapCell(h, widths[i])
		wrapped = wrapped || strings.Contains(fitHeader[i], "\n")
	}
	fitRows = make([][]string, len(rows))
	for j, r := range rows {
		fitRows[j] = make([]string, len(r))
		for i, c := range r {
			fitRows[j][i] = wrapCell(c, widths[i])
			wrapped = wrapped || strings.Contains(fitRows[j][i], "\n")
		}
	}
	return fitHeader, fitRows, wrapped
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
