package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// No description names a place of its own: without a build none names one, and with a build's place
// every public tool's summary starts with it, in the brief, the help and the JSON alike.
func TestDescriptionsNameTheBuildsPlace(t *testing.T) {
	v := Vocabulary{}
	v.SetPlace(Place{Name: "みなとみらいベイテラス", NameEn: "Minatomirai Bay Terrace"})
	for _, d := range All() {
		doc, _ := json.Marshal(DescribeWith(d, nil))
		for what, text := range map[string]string{"help": Help(d), "brief": Brief(d, nil, "x"), "json": string(doc)} {
			if strings.Contains(text, "麻布台") || strings.Contains(text, "Azabudai") || strings.Contains(text, "周辺の") {
				t.Errorf("%s %s names a place without a build:\n%s", d.Name, what, text)
			}
		}
		doc, _ = json.Marshal(DescribeWith(d, v))
		for what, text := range map[string]string{"help": HelpWith(d, v), "brief": Brief(d, v, "x"), "json": string(doc)} {
			if named := strings.Contains(text, "みなとみらいベイテラス周辺の"); named == d.Private {
				t.Errorf("%s %s: names the place %v, want %v:\n%s", d.Name, what, named, !d.Private, text)
			}
		}
	}
	if got := (Vocabulary{}).Place(); got != (Place{}) {
		t.Errorf("an empty vocabulary's place is %+v", got)
	}
	if got := v.Place(); got.NameEn != "Minatomirai Bay Terrace" {
		t.Errorf("the place read back is %+v", got)
	}
}
