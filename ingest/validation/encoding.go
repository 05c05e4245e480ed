package validation

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// sniffBytes is how much of a file's start decides its encoding.
const sniffBytes = 64 << 10

// Encoding errors are reported once for the whole file: one error per cell says nothing more.
var (
	errUTF16    = errors.New("looks like UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8 (Excel: CSV UTF-8)")
	errShiftJIS = errors.New("looks like Shift_JIS (CP932): save it as UTF-8 (Excel: CSV UTF-8)")
)

// sniffEncoding looks at the start of a file without a UTF-8 byte order mark. A UTF-16 byte order mark,
// or text that is well-formed Shift_JIS (CP932) with more bytes that are not UTF-8 than characters that
// are, makes the file one of those encodings; a file that is mostly UTF-8 with a few bad bytes is UTF-8,
// and its bad cells are reported one by one.
func sniffEncoding(head []byte) error {
	if bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")) {
		return errUTF16
	}
	if utf8.Valid(head) {
		return nil
	}
	good, bad := 0, 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:]) {
				i = len(head) // a character cut at the end of the sample
				continue
			}
			bad++
		case size > 1:
			good++
		}
		i += size
	}
	if bad > good && isShiftJIS(head) {
		return errShiftJIS
	}
	return nil
}

// isShiftJIS reports whether b is well-formed Shift_JIS as Windows writes it (CP932): ASCII,
// half-width katakana (0xA1-0xDF), and two-byte characters with a lead byte 0x81-0x9F or 0xE0-0xFC
// and a trail byte 0x40-0x7E or 0x80-0xFC. A lead byte cut at the end of b is allowed.
func isShiftJIS(b []byte) bool {
	nonASCII := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x80:
		case c >= 0xa1 && c <= 0xdf:
			nonASCII = true
		case c >= 0x81 && c <= 0x9f, c >= 0xe0 && c <= 0xfc:
			nonASCII = true
			if i+1 == len(b) {
				return true
			}
			t := b[i+1]
			if t < 0x40 || t == 0x7f || t > 0xfc {
				return false
			}
			i++
		default:
			return false
		}
	}
	return nonASCII
}
