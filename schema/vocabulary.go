package schema

import "strings"

// MaxListed is the most values a description lists for one label column; more are cut with "…"
// (never a count: descriptions say nothing that changes with the data's size). A reader of the values
// reads one more, to know there are more.
const MaxListed = 30

// Vocabulary holds what descriptions show of a built database: the values each label column has,
// keyed by VocabKey, one row of each table as its columns' examples, keyed by ExampleKey, and the
// build's place (Place). A nil Vocabulary means no database was read: descriptions then list no label
// values (a line says where they come from), show schema/'s own examples, which pair nothing with
// anything, and name no place.
type Vocabulary map[string][]string

// VocabKey names a label column in a Vocabulary.
func VocabKey(relation, column string) string {
	return strings.ToLower(relation) + "." + strings.ToLower(column)
}

// ExampleKey names a table column's example value in a Vocabulary.
func ExampleKey(table, column string) string { return "example:" + VocabKey(table, column) }

// NoBuildLabels is what a description says in place of label values when no build was read: the
// values are the data's, and no list of schema/'s words may pass for them.
const NoBuildLabels = "ラベル列の値はビルドから読みます。--db PATH か環境変数 CTOOL_DB でビルドを指定すると、ここにその値が並びます（推測した値で比べると一致しません）"

// maxExampleRunes is the longest example a description shows; a longer value is cut with "...".
const maxExampleRunes = 60

// LabelDoc lists the values of one label column of a dataset, as the agent help shows them.
type LabelDoc struct {
	Column    string   `json:"column"`
	Relations []string `json:"relations"`
	Values    []string `json:"values"`
}

// labelDocs gathers a dataset's label columns, one entry per column name across its table and views.
func labelDocs(d *Dataset, v Vocabulary) []LabelDoc {
	out := []LabelDoc{}
	index := map[string]int{}
	add := func(relation, column string) {
		i, ok := index[column]
		if !ok {
			values := []string{}
			if got, ok := v[VocabKey(relation, column)]; ok {
				values = got
			}
			if len(values) > MaxListed {
				values = append(append([]string{}, values[:MaxListed]...), "…")
			}
			out = append(out, LabelDoc{Column: column, Relations: []string{}, Values: append([]string{}, values...)})
			i = len(out) - 1
			index[column] = i
		}
		out[i].Relations = append(out[i].Relations, relation)
	}
	for _, r := range relationsOf(d) {
		if r.Kind == AliasRelation {
			continue
		}
		for _, c := range r.Columns {
			if c.Label() {
				add(r.Name, c.Name)
			}
		}
	}
	return out
}

// clipExample is a value as an example: at most maxExampleRunes, on one line.
func clipExample(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxExampleRunes {
		return string(r[:maxExampleRunes]) + "..."
	}
	return s
}
