// Package changeview is what the console's changes pages show of a row that changed: its key and name,
// each changed field with the changed part of its text found (textdiff: old and new as parts, which
// the pages' templates mark with <del> and <ins>, never markup made here), and beside a field the
// values the build derives from it where they changed too (a product's price, a store's hours).
package changeview

import (
	"slices"
	"strings"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/internal/textdiff"
	"github.com/azabudai/ctool/schema/injection"
)

// Words names what a page shows in its language: the console's page.
type Words interface {
	T(key string) string
	ColumnLabel(dataset, column string) string
}

// Row is a row as shown: its key and name, its record's link, its fields.
type Row struct {
	Key    []string
	Name   string
	Link   string // the row's record in this build; none for a removed row
	Fields []Field
}

// Field is a field of a row as shown: a column's text, old and new, the changed part marked, or a value
// the build derives (Derived, From the labels of the columns it is derived from). OldNull and NewNull
// are an empty side: NULL, no value. Cut says the texts are shown in excerpts, OldWhole and NewWhole
// being them whole. AI is what of the new text addresses an AI agent rather than a visitor, as the
// console's lists and records mark it.
type Field struct {
	Column, Label      string
	Derived            bool
	From               string
	Old, New           []textdiff.Part
	OldNull, NewNull   bool
	Cut                bool
	OldWhole, NewWhole string
	AI                 *injection.Injection
	from               []string // the names of the columns it is derived from
}

// Rows shows rows of one kind of change of a dataset, derived[i] being the derived values of rows[i]
// (changed rows only; nil when none are known) and link a row's record by its key ("" for none).
func Rows(w Words, dataset, kind string, rows []changes.RowDiff, derived [][]changes.Derived, link func(key []string) string) []Row {
	out := make([]Row, 0, len(rows))
	for i, df := range rows {
		row := Row{Key: df.Key, Name: df.Name}
		if kind != changes.Removed {
			row.Link = link(df.Key)
		}
		for _, f := range df.Fields {
			fc := Field{Column: f.Column, Label: w.ColumnLabel(dataset, f.Column)}
			switch kind {
			case changes.Changed:
				fc.show(f.Old, f.New)
			case changes.Added:
				fc.New, fc.NewNull = whole(f.New), f.New == ""
			default:
				fc.Old, fc.OldNull = whole(f.Old), f.Old == ""
			}
			if in, found := injection.AddressesAI(f.New); found && kind != changes.Removed {
				fc.AI = &in
			}
			row.Fields = append(row.Fields, fc)
		}
		if i < len(derived) {
			for _, dv := range derived[i] {
				row.Fields = besideItsSource(row.Fields, derivedField(w, dataset, dv))
			}
		}
		out = append(out, row)
	}
	return out
}

// HasDerived reports a row with a derived value.
func HasDerived(rows []Row) bool {
	for _, r := range rows {
		if slices.ContainsFunc(r.Fields, func(f Field) bool { return f.Derived }) {
			return true
		}
	}
	return false
}

// show sets the field's sides from its old and new text, the changed part marked.
func (fc *Field) show(old, new string) {
	s := textdiff.Show(old, new)
	fc.Old, fc.New, fc.Cut = s.Old, s.New, s.Cut
	fc.OldNull, fc.NewNull = old == "", new == ""
	if s.Cut {
		fc.OldWhole, fc.NewWhole = old, new
	}
}

// whole is a text shown whole, nothing marked.
func whole(text string) []textdiff.Part {
	if text == "" {
		return nil
	}
	return []textdiff.Part{{Text: text}}
}

// derivedField is a derived value as shown: a store's hours as rows only for the days that changed.
func derivedField(w Words, dataset string, dv changes.Derived) Field {
	fc := Field{Column: dv.Column, Label: w.ColumnLabel(dataset, dv.Column), Derived: true, from: dv.From}
	var labels []string
	for _, from := range dv.From {
		labels = append(labels, w.ColumnLabel(dataset, from))
	}
	fc.From = strings.Join(labels, w.T(", "))
	old, new := dv.Old, dv.New
	if dv.Column == changes.StoreHours {
		fc.Label = w.T("Opening hours as read, the days that changed")
		old, new = changedDays(old, new)
		old, new = weekText(w, old), weekText(w, new)
	}
	fc.show(old, new)
	return fc
}

// besideItsSource puts a derived value after the last field it is derived from (and the values
// derived from that field before it), or last.
func besideItsSource(fields []Field, dv Field) []Field {
	at := len(fields)
	for i := len(fields) - 1; i >= 0; i-- {
		if !fields[i].Derived && slices.Contains(dv.from, fields[i].Column) {
			for at = i + 1; at < len(fields) && fields[at].Derived; at++ {
			}
			break
		}
	}
	return slices.Insert(fields, at, dv)
}

// changedDays are the lines of two weeks of hours (changes.StoreHours) for the days whose hours
// differ: a day the same in both is left out.
func changedDays(old, new string) (string, string) {
	day := func(line string) string { d, _, _ := strings.Cut(line, " "); return d }
	lines := func(text string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(text, "\n") {
			m[day(l)] = l
		}
		return m
	}
	o, n := lines(old), lines(new)
	keep := func(text string) string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if d := day(l); l != "" && o[d] != n[d] {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	return keep(old), keep(new)
}

// weekText is a store's hours as rows (changes.StoreHours: a line a day, "monday 11:30-14:30") with
// the days in the page's words (the console's for monday … sunday and holiday).
func weekText(w Words, text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if day, rest, ok := strings.Cut(l, " "); ok {
			lines[i] = w.T(day) + " " + rest
		}
	}
	return strings.Join(lines, "\n")
}

// Messages are the changes pages' words, Japanese then English, for the console's: those this package
// and the pages' rows ask for.
var Messages = map[string][2]string{
	"derived from %s": {"%sから派生", "derived from %s"},
	"whole text":      {"全文", "whole text"},
	"text left out":   {"省略", "text left out"},
	"Opening hours as read, the days that changed": {"読み取った営業時間（変わった曜日）", "Opening hours as read, the days that changed"},
	"%d changed row":        {"変更された行 %d 件", "%d changed row"},
	"%d changed rows":       {"変更された行 %d 件", "%d changed rows"},
	"all on their own page": {"一覧ページで見る", "all on their own page"},
	"%s: %s rows changed, more than %d: they are listed on their own page.": {
		"%s: 変更された行は %s 件で、%d 件を超えるため一覧ページに表示します。",
		"%s: %s rows changed, more than %d: they are listed on their own page."},
	"The values a build derives from a changed text (a price, opening hours, an offer) are shown too, marked derived.": {
		"変更された文から派生する値（価格、読み取った営業時間、設備や対応の有無など）も「…から派生」として示します。",
		"The values a build derives from a changed text (a price, opening hours, an offer) are shown too, marked derived."},
	"Derived values are read from builds: against an input directory they are not shown.": {
		"派生する値はビルドから読みます。比較対象が入力ディレクトリのときは表示しません。",
		"Derived values are read from builds: against an input directory they are not shown."},
}
