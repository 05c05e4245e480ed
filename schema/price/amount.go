package price

import (
	"math"
	"strings"
	"unicode/utf8"
)

// number reads the amount at s[i].
func (r *priceReader) number(i int) int {
	yen, f, first, end := parseAmount(r.s, i)
	r.content = true
	if fragment(r.s, i, first) {
		f |= pfRefused
	}
	if r.n == len(r.amts) {
		r.last = -1
		return end
	}
	if r.struck {
		f |= pfAside
	}
	a := priceAmount{yen: int32(yen), flags: f, part: r.part, end: int32(end)}
	if yen > math.MaxInt32 {
		a.yen, a.flags = 0, a.flags|pfRefused
	}
	r.amts[r.n] = a
	for _, p := range r.pending[:r.npending] {
		if r.junk <= p.deadline {
			r.mark(r.n, p.flags)
		}
	}
	r.npending = 0
	if r.linkFrom >= 0 && r.linkFrom == r.n-1 {
		r.amts[r.linkFrom].flags |= pfLinked
	}
	r.linkFrom = -1
	r.amts[r.n].junk = r.junk
	r.last, r.lastEnd = r.n, end
	r.n++
	return end
}

// parseAmount reads the number at s[i]: digits, ASCII or full-width, perhaps grouped by thousands,
// perhaps with a decimal part, perhaps scaled by 万, 千 or 百, in that order ("1.2万", "1万2,000",
// "3千"). first is how many digits its first group has; end is where it ends.
func parseAmount(s string, i int) (yen int64, f priceFlag, first, end int) {
	scale := int64(100000) // each scale must be smaller than the one before
	for {
		n, frac, fracScale, digits, j := parseDigits(s, i)
		if first == 0 {
			first = digits
		}
		m := int64(1)
		switch {
		case j >= len(s) || s[j] < 0xE4: // not 万 千 百
		case strings.HasPrefix(s[j:], "万") && scale > 10000:
			m, f = 10000, f|pfMan
		case strings.HasPrefix(s[j:], "千") && scale > 1000:
			m, f = 1000, f|pfSen
		case strings.HasPrefix(s[j:], "百") && scale > 100:
			m = 100
		}
		yen += n * m
		if frac != 0 {
			if frac*m%fracScale != 0 {
				f |= pfRefused // a fraction of a yen: "¥1.5", or "¥1.200" written the European way
			}
			yen += frac * m / fracScale
		}
		if yen > math.MaxInt32 {
			yen = math.MaxInt32 + 1
		}
		if m == 1 {
			return yen, f, first, j
		}
		j += len("万") // 万, 千 and 百 are all three bytes
		scale = m
		if _, w := digitAt(s, j); w == 0 {
			return yen, f, first, j
		}
		i = j
	}
}

// parseDigits reads a run of digits from s[i], with thousands separators and a decimal part: n is
// its integer part, frac/fracScale its fraction, first how many digits its first group has.
func parseDigits(s string, i int) (n, frac, fracScale int64, first, end int) {
	fracScale, first = 1, -1
	group := 0 // digits since the last separator
	for {
		for ; i < len(s) && s[i]-'0' <= 9; i++ { // ASCII digits, the common case
			if n <= math.MaxInt32 { // past it, no more is needed to refuse it
				n = n*10 + int64(s[i]-'0')
			}
			group++
		}
		if d, w := digitAt(s, i); w > 0 {
			if n <= math.MaxInt32 {
				n = n*10 + d
			}
			group++
			i += w
			continue
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c != ',' && c != '.' && c != 0xEF && c != 0xE3 { // none of ,.，．、
			break
		}
		sep, w := separatorAt(s, i)
		if (sep == ',' || sep == '、') && (first < 0 && group <= 3 || group == 3) {
			if zero, ok := threeDigits(s, i+w); ok && (sep == ',' || zero) {
				if first < 0 {
					first = group
				}
				group = 0
				i += w
				continue
			}
		}
		if _, dw := digitAt(s, i+w); sep == '.' && dw > 0 {
			for i += w; ; i += w {
				var d int64
				if d, w = digitAt(s, i); w == 0 {
					break
				}
				if fracScale < 1e6 {
					frac, fracScale = frac*10+d, fracScale*10
				}
			}
		}
		break
	}
	if first < 0 {
		first = group
	}
	return n, frac, fracScale, first, i
}

// digitAt is the digit at s[i], ASCII or full-width, and its width; w is 0 if there is none.
func digitAt(s string, i int) (d int64, w int) {
	if i < len(s) {
		if c := s[i]; c >= '0' && c <= '9' {
			return int64(c - '0'), 1
		}
		if i+2 < len(s) && s[i] == 0xEF && s[i+1] == 0xBC && s[i+2] >= 0x90 && s[i+2] <= 0x99 { // ０-９
			return int64(s[i+2] - 0x90), 3
		}
	}
	return 0, 0
}

// separatorAt is the separator at s[i] between digits, ',' '.' ':' or '、', full-width read as ASCII.
func separatorAt(s string, i int) (sep rune, w int) {
	if i >= len(s) {
		return 0, 0
	}
	switch c := s[i]; c {
	case ',', '.', ':':
		return rune(c), 1
	case 0xEF, 0xE3:
		switch {
		case strings.HasPrefix(s[i:], "，"):
			return ',', 3
		case strings.HasPrefix(s[i:], "．"):
			return '.', 3
		case strings.HasPrefix(s[i:], "："):
			return ':', 3
		case strings.HasPrefix(s[i:], "、"):
			return '、', 3
		}
	}
	return 0, 0
}

// threeDigits reports whether exactly three digits follow at s[i], and whether the first is 0.
func threeDigits(s string, i int) (zero, ok bool) {
	if i+3 < len(s) && s[i]-'0' <= 9 && s[i+1]-'0' <= 9 && s[i+2]-'0' <= 9 && s[i+3] < 0x80 { // ASCII
		return s[i] == '0', s[i+3]-'0' > 9
	}
	d0, _ := digitAt(s, i)
	for k := 0; k < 3; k++ {
		_, w := digitAt(s, i)
		if w == 0 {
			return false, false
		}
		i += w
	}
	_, after := digitAt(s, i)
	return d0 == 0, after == 0
}

// fragment reports whether the digits at s[i] continue a number a separator before them ended:
// "1,00円", "12:00", "1.2.3", or a group of three after '、' ("1、500円"), which might be thousands.
func fragment(s string, i, first int) bool {
	if i == 0 || s[i-1] < 0x80 && s[i-1] != ',' && s[i-1] != '.' && s[i-1] != ':' {
		return false
	}
	sep, w := utf8.DecodeLastRuneInString(s[:i])
	switch sep {
	case ',', '.', ':', '，', '．', '：':
	case '、':
		if first != 3 {
			return false
		}
	default:
		return false
	}
	d, _ := utf8.DecodeLastRuneInString(s[:i-w])
	return d >= '0' && d <= '9' || d >= '０' && d <= '９'
}

// bareAfter reports whether nothing but punctuation (or 円, 税) follows an amount ending at s[i]: a
// count or a size has a word after it ("2名", "10%", "500g").
func bareAfter(s string, i int) bool {
	if i < len(s) && isASCIILetter(s[i]) {
		return false
	}
	i = skipBlank(s, i)
	if i >= len(s) {
		return true
	}
	c, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case c == '%' || c == '#' || c == '&' || c == '@' || c == '*':
		return false
	case c < 0x80:
		return !isASCIILetter(byte(c))
	case c == '円' || c == '税' || c == '¥' || c == '￥' || c == '・' || c == 'ー':
		return true
	case c >= 0x3000 && c <= 0x303F: // CJK punctuation: 、。「」〜
		return true
	case c >= 0xFF01 && c <= 0xFF5E:
		return c != '％' && !(c >= 0xFF21 && c <= 0xFF3A || c >= 0xFF41 && c <= 0xFF5A)
	case c >= 0x2000 && c <= 0x27BF: // general punctuation, arrows
		return true
	}
	return false
}

// skipBlank skips white space from s[i].
func skipBlank(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t':
			i++
		case strings.HasPrefix(s[i:], "\u3000"):
			i += len("\u3000")
		default:
			return i
		}
	}
	return i
}

// skipLead skips what may come between a tax note or a range sign and its amount: white space, a
// colon, a closing bracket of a heading ("【税込】"), a yen sign.
func skipLead(s string, i int) int {
	for {
		i = skipBlank(s, i)
		switch {
		case i < len(s) && (s[i] == ':' || s[i] == ']' || s[i] == '\\'):
			i++
		case strings.HasPrefix(s[i:], "："), strings.HasPrefix(s[i:], "】"), strings.HasPrefix(s[i:], "￥"):
			i += 3
		case strings.HasPrefix(s[i:], "¥"):
			i += 2
		default:
			return i
		}
	}
}

// placeholderBefore reports whether a 円 at s[i] follows a mark standing for a number: "〇〇円", "?円".
func placeholderBefore(s string, i int) bool {
	c, _ := utf8.DecodeLastRuneInString(s[:i])
	return strings.ContainsRune("〇○◯●×？?＊*XＸ", c)
}
