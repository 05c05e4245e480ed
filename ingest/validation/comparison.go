package validation

// What validate --against reports changed since the previous build: computed by ingest/changes, part
// of the report in every format.

import (
	"fmt"
	"io"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
)

// Comparison is what changed in each dataset since the build validate --against named.
type Comparison struct {
	Against  string          `json:"against"`
	Datasets []DatasetChange `json:"datasets"`
}

// DatasetChange compares one dataset's rows by its key (schema.Dataset.Key). For personal data
// (profiles) it holds counts only: no key, no value and no per-row detail ever leaves the comparison.
type DatasetChange struct {
	Dataset        string        `json:"dataset"`
	Compared       bool          `json:"compared"` // false when this side's files could not be read whole
	Rows           int           `json:"rows"`
	WasRows        int           `json:"was_rows"`
	Added          int           `json:"added"`
	Removed        int           `json:"removed"`
	Changed        int           `json:"changed"`
	ChangedColumns []ColumnCount `json:"changed_columns,omitempty"` // how many changed rows differ in each column
	ColumnsAdded   []string      `json:"columns_added,omitempty"`
	ColumnsRemoved []string      `json:"columns_removed,omitempty"`
	// The first rows by key of each kind (at most ten), in file order; never for personal data.
	AddedRows   []RowChange `json:"added_rows,omitempty"`
	RemovedRows []RowChange `json:"removed_rows,omitempty"`
	ChangedRows []RowChange `json:"changed_rows,omitempty"`
}

// ColumnCount is how many rows changed in one column.
type ColumnCount struct {
	Column string `json:"column"`
	Rows   int    `json:"rows"`
}

// RowChange names one row by its key's values, and for a changed row the columns that differ, each
// with its value before and after (Fields, in the order of Columns).
type RowChange struct {
	Key     []string      `json:"key"`
	Columns []string      `json:"columns,omitempty"`
	Fields  []FieldChange `json:"fields,omitempty"`
}

// FieldChange is one field of a changed row: its value before and after ("" for no value).
type FieldChange struct {
	Column string `json:"column"`
	Old    string `json:"old"`
	New    string `json:"new"`
}

// writeComparisonText is the comparison in the text report: a line per dataset, then the rows named.
func writeComparisonText(w io.Writer, c *Comparison) {
	if c == nil {
		return
	}
	// Keys are data: their control characters are shown as escapes, as in every text report.
	fmt.Fprintf(w, "compared with %s:\n", escape.Visible(c.Against))
	for _, ch := range c.Datasets {
		fmt.Fprintf(w, "  %s\n", ch.summary())
		for _, r := range ch.AddedRows {
			fmt.Fprintf(w, "    added %s\n", escape.Visible(strings.Join(r.Key, " / ")))
		}
		for _, r := range ch.RemovedRows {
			fmt.Fprintf(w, "    removed %s\n", escape.Visible(strings.Join(r.Key, " / ")))
		}
		for _, r := range ch.ChangedRows {
			fmt.Fprintf(w, "    changed %s: %s\n", escape.Visible(strings.Join(r.Key, " / ")), strings.Join(r.Columns, ", "))
			for _, f := range r.Fields {
				fmt.Fprintf(w, "      %s: %s → %s\n", f.Column, escape.Quote(f.Old), escape.Quote(f.New))
			}
		}
	}
}

// summary is one line about a dataset's change.
func (ch DatasetChange) summary() string {
	if !ch.Compared {
		return fmt.Sprintf("%s: not compared (its files have problems)", ch.Dataset)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows (was %d): %d added, %d removed, %d changed", ch.Dataset, ch.Rows, ch.WasRows, ch.Added, ch.Removed, ch.Changed)
	if len(ch.ChangedColumns) > 0 {
		var parts []string
		for _, cc := range ch.ChangedColumns {
			parts = append(parts, fmt.Sprintf("%s %d", cc.Column, cc.Rows))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	if len(ch.ColumnsAdded) > 0 {
		fmt.Fprintf(&b, "; columns added: %s", strings.Join(ch.ColumnsAdded, ", "))
	}
	if len(ch.ColumnsRemoved) > 0 {
		fmt.Fprintf(&b, "; columns removed: %s", strings.Join(ch.ColumnsRemoved, ", "))
	}
	return b.String()
}
