package schema

// Place is the complex a build describes, as its input's place.json names it: Name in Japanese, what
// the descriptions say, and NameEn in English. The zero Place names nothing, and the descriptions then
// name no place: the code is the same for every complex, and only a build knows which one it holds.
type Place struct {
	Name   string `json:"name"`
	NameEn string `json:"name_en,omitempty"`
}
