package schema

import "strings"

// maxListed is the most values a description lists for one label column; more are cut with "…"
// (never a count: descriptions say nothing that changes with the data's size).
const maxListed = 30

// Vocabulary holds the values each label column has in a built database, keyed by VocabKey. A nil
// Vocabulary, or a missing key, means no database was read: descriptions then use schema/'s Words.
type Vocabulary map[string][]string

// VocabKey names a label column in a Vocabulary.
func VocabKey(relation, column string) string {
	return strings.ToLower(relation) + "." + strings.ToLower(column)
}

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
	add := func(relation, column string, words []string) {
		i, ok := index[column]
		if !ok {
			values := words
			if got, ok := v[VocabKey(relation, column)]; ok {
				values = got
			}
			if len(values) > maxListed {
				values = append(append([]string{}, values[:maxListed]...), "…")
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
				add(r.Name, c.Name, c.Words())
			}
		}
	}
	return out
}

// labelWords are the values schema/ knows a label column to hold: an enum's values, or its Words.
func (c Column) labelWords() []string {
	if len(c.Words) > 0 {
		return c.Words
	}
	return c.Values
}
