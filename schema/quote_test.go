package schema

import "testing"

func TestQuoteIdent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"stores", `"stores"`},
		{"", `""`},
		{`a"b`, `"a""b"`},
		{`"; DROP TABLE x; --`, `"""; DROP TABLE x; --"`},
		{"店舗", `"店舗"`},
	} {
		if got := QuoteIdent(tc.in); got != tc.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
