package validation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// A place file is an object of a non-empty "name" and an optional "name_en"; anything else is a
// problem that names the file, the line and the key.
func TestParsePlace(t *testing.T) {
	tests := []struct {
		name, text string
		want       schema.Place
		problems   string // one line each, as the text report writes them
	}{
		{"both names", `{"name": "麻布台ヒルズ", "name_en": "Azabudai Hills"}`, schema.Place{Name: "麻布台ヒルズ", NameEn: "Azabudai Hills"}, ""},
		{"Japanese only", "\ufeff{\n  \"name\": \"みなとみらい\"\n}\n", schema.Place{Name: "みなとみらい"}, ""},
		{"unknown key", "{\n  \"name\": \"x\",\n  \"city\": \"横浜\"\n}", schema.Place{},
			`p:3: city: place: unknown key "city"; a place file holds "name" and "name_en"`},
		{"empty name", `{"name": " ", "name_en": "X"}`, schema.Place{},
			`p:1: name: place: "name" is empty; name the place, or remove place.json for a build that names none`},
		{"empty English name", `{"name": "X", "name_en": ""}`, schema.Place{},
			`p:1: name_en: place: "name_en" is empty; name the place, or remove place.json for a build that names none`},
		{"no name", `{"name_en": "X"}`, schema.Place{},
			`p:0: name: place: no "name"; want {"name": "…", "name_en": "…"}, or remove place.json for a build that names no place`},
		{"not a string", `{"name": 3}`, schema.Place{}, `p:1: name: place: "name" is not a string; want {"name": "…", "name_en": "…"}`},
		{"an object", `{"name": {"ja": "x"}}`, schema.Place{}, `p:1: name: place: "name" is not a string; want {"name": "…", "name_en": "…"}`},
		{"twice", "{\"name\": \"a\",\n\"name\": \"b\"}", schema.Place{}, `p:2: name: place: duplicate key "name"; keep one`},
		{"two lines", `{"name": "麻布台\nヒルズ"}`, schema.Place{},
			`p:1: name: place: "name" holds a control or format character; write the name on one line as it reads`},
		{"a bidi override", "{\"name\": \"\u202eズルヒ\"}", schema.Place{},
			`p:1: name: place: "name" holds a control or format character; write the name on one line as it reads`},
		{"padded", `{"name": "麻布台ヒルズ "}`, schema.Place{}, `p:1: name: place: "name" starts or ends with white space`},
		{"too long", `{"name": "` + strings.Repeat("あ", 101) + `"}`, schema.Place{}, `p:1: name: place: "name" is 101 characters, over the limit of 100`},
		{"not JSON", "{\n\"name\": \"x\",\n}", schema.Place{},
			`p:3: -: place: not valid JSON: invalid character '}' looking for beginning of object key string (at byte 16)`},
		{"empty file", "", schema.Place{}, `p:0: -: place: the file is empty; want {"name": "…", "name_en": "…"}`},
		{"an array", `["麻布台ヒルズ"]`, schema.Place{}, `p:1: -: place: not a JSON object; want {"name": "…", "name_en": "…"}`},
		{"more after", `{"name": "x"} {}`, schema.Place{}, `p:1: -: place: more after the object; want {"name": "…", "name_en": "…"}`},
		{"not UTF-8", "{\"name\": \"caf\xe9\"}", schema.Place{}, `p:0: -: encoding: the file is not UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := parsePlace("p", []byte(tt.text))
			var lines []string
			for _, p := range problems {
				lines = append(lines, p.String())
			}
			if strings.Join(lines, "\n") != tt.problems || got != tt.want {
				t.Errorf("got %+v\n%s\nwant %+v\n%s", got, strings.Join(lines, "\n"), tt.want, tt.problems)
			}
		})
	}
}

// A missing place file is no problem and no place; one over the size limit, or a link, is refused
// before it is read.
func TestReadPlace(t *testing.T) {
	dir := t.TempDir()
	if p, problems, err := readPlace(dir); err != nil || problems != nil || p != (schema.Place{}) {
		t.Errorf("no file: %+v %v %v", p, problems, err)
	}
	path := filepath.Join(dir, PlaceFile)
	if err := os.WriteFile(path, []byte(`{"name": "`+strings.Repeat("x", maxPlaceBytes)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems, err := readPlace(dir)
	if err != nil || len(problems) != 1 || problems[0].String() != path+":0: -: place: is 4108 bytes, over the limit of 4096 for a place file" {
		t.Errorf("too large: %v %v", problems, err)
	}
	os.Remove(path)
	if err := os.Symlink("/etc/hostname", path); err != nil {
		t.Fatal(err)
	}
	_, problems, err = readPlace(dir)
	if err != nil || len(problems) != 1 || problems[0].Rule != RuleFile {
		t.Errorf("a link: %v %v", problems, err)
	}
}
