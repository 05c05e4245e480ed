package textout

import (
	"bytes"
	"testing"
)

func TestJSONKeepsHTMLCharacters(t *testing.T) {
	v := map[string]any{"q": "a < b && c > d", "n": []int{1}}
	var b bytes.Buffer
	if err := JSON(&b, v); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"n\": [\n    1\n  ],\n  \"q\": \"a < b && c > d\"\n}\n"; b.String() != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := JSONLine(&b, v); err != nil {
		t.Fatal(err)
	}
	if want := `{"n":[1],"q":"a < b && c > d"}` + "\n"; b.String() != want {
		t.Errorf("JSONLine = %q, want %q", b.String(), want)
	}
	got, err := Marshal(v)
	if want := `{"n":[1],"q":"a < b && c > d"}`; err != nil || string(got) != want {
		t.Errorf("Marshal = %q, %v; want %q", got, err, want)
	}
}

func TestTableHeadersAsWritten(t *testing.T) {
	var b bytes.Buffer
	tb := Table(&b)
	tb.Header("store_id", "rows")
	tb.Append("S001", "3")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("store_id")) || bytes.Contains(b.Bytes(), []byte("STORE")) {
		t.Errorf("the header was re-cased:\n%s", b.String())
	}
}

// Anything but a terminal gets one line: a pipe, a file, a buffer.
func TestJSONForIsCompactOffATerminal(t *testing.T) {
	var b bytes.Buffer
	if err := JSONFor(&b, map[string]any{"a": []int{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[1,2]}` + "\n"; b.String() != want {
		t.Errorf("JSONFor = %q, want %q", b.String(), want)
	}
}
