package schema

import "math"

// PriceYen is products_typed.price_yen: the first yen amount in a product description, "1,000円",
// "税込500円", "¥1,200", "￥980" or "300 円", its digits read as an INTEGER; ok is false when the
// description has none or the amount does not fit. It is what the regular expression
// [¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円 finds first, its non-digits dropped, and it reads each byte
// once: ingest computes it for every description as validation reads the file, which costs a fraction
// of running that expression in DuckDB over a million descriptions.
func PriceYen(description string) (yen int32, ok bool) {
	s := description
	for i := 0; i < len(s); {
		switch {
		case hasYenSign(s, i):
			sign := 2 // ¥ U+00A5
			if s[i] != 0xc2 {
				sign = 3 // ￥ U+FFE5
			}
			if j := i + sign; j < len(s) && isDigit(s[j]) {
				return digitsOf(s[j:runEnd(s, j)])
			}
			i += sign
		case isDigit(s[i]):
			end := runEnd(s, i)
			// Every start inside the run ends it at the same place, so one check covers them all.
			j := end
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			if j+3 <= len(s) && s[j:j+3] == "円" {
				return digitsOf(s[i:end])
			}
			i = end
		default:
			i++
		}
	}
	return 0, false
}

// hasYenSign reports ¥ (U+00A5) or ￥ (U+FFE5) at byte i.
func hasYenSign(s string, i int) bool {
	return i+2 <= len(s) && s[i:i+2] == "¥" || i+3 <= len(s) && s[i:i+3] == "￥"
}

// runEnd is where the run of digits and commas starting at i ends.
func runEnd(s string, i int) int {
	for i < len(s) && (isDigit(s[i]) || s[i] == ',') {
		i++
	}
	return i
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// isSpace is \s of DuckDB's regular expressions (RE2): ASCII white space only.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

// digitsOf reads the digits of a run of digits and commas as an INTEGER.
func digitsOf(run string) (int32, bool) {
	var n int64
	for i := 0; i < len(run); i++ {
		if !isDigit(run[i]) {
			continue
		}
		n = n*10 + int64(run[i]-'0')
		if n > math.MaxInt32 {
			return 0, false
		}
	}
	return int32(n), true
}
