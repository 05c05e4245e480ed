package validation

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
)

func TestSniffEncoding(t *testing.T) {
	text := "event_name,description\n秋のマルシェ,旬の野菜が集まるマルシェ。ｶﾀｶﾅも\n"
	sjis, err := japanese.ShiftJIS.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, head string
		want       error
	}{
		{"utf-8", text, nil},
		{"ascii", "a,b\n1,2\n", nil},
		{"shift_jis", sjis, errShiftJIS},
		{"shift_jis cut mid-character", sjis[:len(sjis)-4] + "\x82", errShiftJIS},
		{"utf-8 with one shift_jis word", strings.Repeat(text, 3) + "\x83M\x83t\x83g\n", nil},
		{"utf-8 cut mid-character", text[:len(text)-2], nil},
		{"utf-16le", "\xff\xfee\x00v\x00", errUTF16},
		{"utf-16be", "\xfe\xff\x00e\x00v", errUTF16},
		{"binary", "\x00\xff\xfe\xfd\x80\x80", nil},
	} {
		if got := sniffEncoding([]byte(c.head)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
