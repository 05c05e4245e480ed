package schema

// Place is the complex a build describes, as its input's place.json names it: Name in Japanese, what
// the descriptions say, and NameEn in English. The zero Place names nothing, and the descriptions then
// name no place: the code is the same for every complex, and only a build knows which one it holds.
type Place struct {
	Name   string `json:"name"`
	NameEn string `json:"name_en,omitempty"`
}

// placeKey holds a build's place in a Vocabulary, as [name, name_en]: the descriptions rendered from
// a build name its place the way they list its label values.
const placeKey = "build:place"

// Place is the place of the build v was read from; the zero Place for none (or a nil v).
func (v Vocabulary) Place() Place {
	p := v[placeKey]
	if len(p) != 2 {
		return Place{}
	}
	return Place{Name: p[0], NameEn: p[1]}
}

// SetPlace records the build's place in v; a zero p records nothing.
func (v Vocabulary) SetPlace(p Place) {
	if p.Name != "" {
		v[placeKey] = []string{p.Name, p.NameEn}
	}
}

// SummaryAt is the dataset's summary for a build of place p: "<place>周辺の" before it where p is known.
// The summaries themselves name no place.
func (d *Dataset) SummaryAt(p Place) string {
	if p.Name == "" || d.Private {
		return d.Summary
	}
	return p.Name + "周辺の" + d.Summary
}

// Title is p's name for a title in English: its English name, else its name, else "" for none.
func (p Place) Title() string {
	if p.NameEn != "" {
		return p.NameEn
	}
	return p.Name
}
