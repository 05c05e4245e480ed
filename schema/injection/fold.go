package injection

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// srcSpan is the bytes of the cell a folded byte came from.
type srcSpan struct{ start, end int32 }

// foldInjection appends text's folded form to dst, and, when src is set, each folded byte's source.
func foldInjection(dst []byte, src *[]srcSpan, text string) []byte {
	emit := func(r rune, start, end int) {
		if r >= 0xe0020 && r <= 0xe007e {
			r -= 0xe0000 // a tag character: invisible, but the ASCII it hides reaches a model
		}
		switch {
		case r < utf8.RuneSelf:
			switch {
			case r >= 'A' && r <= 'Z':
				r += 'a' - 'A'
			case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
				if len(dst) == 0 || dst[len(dst)-1] == ' ' {
					return
				}
				r = ' '
			}
		case r > 0x3000 && r <= 0x9fff:
			// Kana and kanji, most of a Japanese cell: no case, nothing invisible.
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r):
			return // zero-width spaces, joiners, soft hyphens, bidi controls: they split words unseen
		case unicode.IsSpace(r):
			if len(dst) == 0 || dst[len(dst)-1] == ' ' {
				return
			}
			r = ' '
		default:
			r = unicode.ToLower(r)
			if r >= 0x370 && r < 0x530 {
				if c, ok := confusables[r]; ok {
					r = c
				}
			}
		}
		if r != ' ' && len(dst) >= 2 && dst[len(dst)-1] == ' ' && (r >= utf8.RuneSelf || dst[len(dst)-2] >= utf8.RuneSelf) {
			// Japanese puts no space between words: "以前の 指示を 無視" is "以前の指示を無視".
			dst = dst[:len(dst)-1]
			if src != nil {
				*src = (*src)[:len(*src)-1]
			}
		}
		n := len(dst)
		dst = utf8.AppendRune(dst, r)
		if src != nil {
			for range len(dst) - n {
				*src = append(*src, srcSpan{int32(start), int32(end)})
			}
		}
	}
	// A rune that NFKC keeps as it is, followed by another, is read as it is; anything else (and a
	// rune before it, which a combining mark may join) is normalized a segment at a time, each of
	// its runes from the whole segment.
	var it *norm.Iter // only for a cell that needs it: it is large
	defer func() {
		if it != nil {
			it.InitString(norm.NFKC, "") // the pool keeps no cell alive
			injIters.Put(it)
		}
	}()
	var seg []byte
	for i := 0; i < len(text); {
		if src == nil {
			if dst, i = foldStable(dst, text, i); i == len(text) {
				break
			}
		}
		r, n := decodeRune(text[i:])
		if stableNFKC(r) {
			if i+n == len(text) {
				emit(r, i, i+n)
				break
			}
			if r2, _ := decodeRune(text[i+n:]); stableNFKC(r2) {
				emit(r, i, i+n)
				i += n
				continue
			}
		}
		if it == nil {
			it = injIters.Get().(*norm.Iter)
		}
		// One input segment may come out in several pieces ("㍿"): its end is known after the last.
		it.InitString(norm.NFKC, text[i:])
		seg = seg[:0]
		for it.Pos() == 0 && !it.Done() {
			seg = append(seg, it.Next()...)
		}
		end := i + max(it.Pos(), n)
		for len(seg) > 0 {
			sr, sn := utf8.DecodeRune(seg)
			emit(sr, i, end)
			seg = seg[sn:]
		}
		i = end
	}
	return dst
}

// foldStable does emit's work, without a call per rune and without the sources, on the runes of
// text[i:] that fold alone and are followed by another such rune or by the end: most of a cell. It
// returns where it stopped.
func foldStable(dst []byte, text string, i int) ([]byte, int) {
	kept := i // text[kept:i] goes to dst as written, at once
	r, n := decodeRune(text[i:])
	for i < len(text) && foldsAlone(r) {
		var r2 rune
		n2 := 0
		if j := i + n; j < len(text) {
			var ok bool
			switch r2, ok = threeBytes(text, j); {
			case ok:
				n2 = 3
			case text[j] < utf8.RuneSelf:
				r2, n2 = rune(text[j]), 1
			default:
				r2, n2 = utf8.DecodeRuneInString(text[j:])
			}
			if !foldsAlone(r2) {
				break
			}
		}
		switch {
		case r >= utf8.RuneSelf && (r < 0xff01 || r > 0xff5e):
			// As written (emit changes none of these), and no space before it after such a rune.
			if kept == i && len(dst) >= 2 && dst[len(dst)-1] == ' ' {
				dst = dst[:len(dst)-1]
			}
		default:
			dst = append(dst, text[kept:i]...)
			kept = i + n
			c := byte(r)
			if r >= utf8.RuneSelf {
				c = byte(r - 0xfee0) // full-width ASCII: NFKC's ASCII
			}
			if c == ' ' || c >= '\t' && c <= '\r' {
				if len(dst) > 0 && dst[len(dst)-1] != ' ' {
					dst = append(dst, ' ')
				}
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if len(dst) >= 2 && dst[len(dst)-1] == ' ' && dst[len(dst)-2] >= utf8.RuneSelf {
				dst = dst[:len(dst)-1]
			}
			dst = append(dst, c)
		}
		i, r, n = i+n, r2, n2
	}
	return append(dst, text[kept:i]...), i
}

// foldsAlone reports whether NFKC writes r as one rune whatever runes of this kind surround it: the
// stable runes, full-width ASCII (its ASCII) and the marks of Japanese text that NFKC keeps
// (・ 〜 々 ※ ¥), which a description holds often. TestFoldsAlone checks each against NFKC.
func foldsAlone(r rune) bool {
	return stableNFKC(r) || r >= 0xff01 && r <= 0xff5e || r == 0x30fb || r == 0x301c || r == 0x3005 || r == 0x203b || r == 0xa5
}

// injIters are the NFKC iterators of foldInjection, kept between calls: an iterator is large.
var injIters = sync.Pool{New: func() any { return new(norm.Iter) }}

// decodeRune is utf8.DecodeRuneInString with a character of three bytes, kana and kanji, read inline.
func decodeRune(s string) (rune, int) {
	if r, ok := threeBytes(s, 0); ok {
		return r, 3
	}
	return utf8.DecodeRuneInString(s)
}

// threeBytes reads s[i:] as a character of three bytes, as utf8 would, when it is one; a lead byte
// of E0 or ED, which may start an overlong form or a surrogate, is left to utf8.
func threeBytes(s string, i int) (rune, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	b0, b1, b2 := s[i], s[i+1], s[i+2]
	if b0 <= 0xe0 || b0 >= 0xf0 || b0 == 0xed || b1&0xc0 != 0x80 || b2&0xc0 != 0x80 {
		return 0, false
	}
	return rune(b0&0x0f)<<12 | rune(b1&0x3f)<<6 | rune(b2&0x3f), true
}

// stableNFKC reports whether NFKC leaves r as it is, whatever follows it but a combining mark: ASCII,
// kana, kanji and the common Japanese marks, most of a cell.
func stableNFKC(r rune) bool {
	return r < utf8.RuneSelf || r >= 0x3041 && r <= 0x3096 || r >= 0x30a1 && r <= 0x30fa || r == 0x30fc ||
		r >= 0x4e00 && r <= 0x9fff || r == 0x3001 || r == 0x3002 || r >= 0x300c && r <= 0x3011
}

// confusables are Cyrillic and Greek letters that look like Latin ones, read as those: "ignоre" with
// a Cyrillic o reads "ignore" to a model.
var confusables = map[rune]rune{
	'а': 'a', 'с': 'c', 'е': 'e', 'і': 'i', 'ј': 'j', 'о': 'o', 'р': 'p', 'ѕ': 's', 'х': 'x', 'у': 'y', 'ԁ': 'd',
	'ο': 'o', 'ι': 'i', 'α': 'a', 'ν': 'v', 'τ': 't',
}
