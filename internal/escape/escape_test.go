package escape

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"麻布台ヒルズ café", "麻布台ヒルズ café"},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bidi\u202egnp.exe\u2066x\u2069\u200f", `bidi\u202egnp.exe\u2066x\u2069\u200f`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{`back\slash`, `back\slash`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("あ", 100)
	for _, c := range []struct{ in, want string }{
		{"ok", `"ok"`},
		{"x\n::warning::y", `"x\n::warning::y"`},
		{"\u202e", `"\u202e"`},
		{long, `"` + strings.Repeat("あ", excerptRunes) + `"…`},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestJSONKeepsMeaning(t *testing.T) {
	in := "x\u009b\u202e\u2028y\x1b\x7f"
	b, err := json.Marshal(map[string]string{"v": in})
	if err != nil {
		t.Fatal(err)
	}
	safe := JSON(b)
	for _, r := range string(safe) {
		if Unsafe(r) {
			t.Errorf("raw %U left in %s", r, safe)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil || back["v"] != in {
		t.Errorf("decoded %q (%v), want %q", back["v"], err, in)
	}
}
