package validation

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCheckUTF8Splits: a text cut into two buffers anywhere is judged as it is whole.
func TestCheckUTF8Splits(t *testing.T) {
	for _, text := range []string{"麻布台ヒルズ 🍣 café", "ok\xffno", "cut at the end \xe3\x81", "\x80 starts with a continuation"} {
		want := utf8.ValidString(text)
		for cut := 0; cut <= len(text); cut++ {
			carry, ok := checkUTF8(nil, []byte(text[:cut]))
			if ok {
				carry, ok = checkUTF8(carry, []byte(text[cut:]))
			}
			if got := ok && len(carry) == 0; got != want {
				t.Errorf("%q cut at %d: valid %v, want %v", text, cut, got, want)
			}
		}
	}
}

// TestHashingReaderAhead: the bytes, their count, hash, carriage returns and UTF-8 verdict come out as
// read straight through, across buffer boundaries.
func TestHashingReaderAhead(t *testing.T) {
	for _, text := range []string{"", "a,b\r\n", strings.Repeat("麻布台,ヒルズ\n", aheadBuffer/10), strings.Repeat("x", aheadBuffer) + "\xff"} {
		hr := &hashingReader{r: strings.NewReader(text), h: sha256.New()}
		got, err := io.ReadAll(hr)
		if err != nil || string(got) != text {
			t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(text))
		}
		sum := sha256.Sum256([]byte(text))
		if hex.EncodeToString(hr.h.Sum(nil)) != hex.EncodeToString(sum[:]) || hr.n != int64(len(text)) ||
			hr.hasCR != strings.Contains(text, "\r") || hr.allUTF8() != utf8.ValidString(text) {
			t.Errorf("%d bytes: n %d, hasCR %v, allUTF8 %v", len(text), hr.n, hr.hasCR, hr.allUTF8())
		}
	}
}
