package schema

import (
	"math"
	"strings"
)

// PriceYen is products_typed.price_yen: the first yen amount in a product description, "1,000円",
// "税込500円", "¥1,200", "￥980" or "300 円", its digits read as an INTEGER; ok is false when the
// description has none or the amount does not fit. It is what the regular expression
// [¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円 finds first, its non-digits dropped, and it reads each byte
// once: ingest computes it for every description as validation reads the file, which costs a fraction
// of running that expression in DuckDB over a million descriptions.
func PriceYen(description string) (yen int32, ok bool) {
	s := description
	// Every match holds a digit: go from run of digits to run of digits. A yen sign right before a run
	// starts a match there, before any the run could start; else the run matches if 円 follows it.
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		end := runEnd(s, i)
		if strings.HasSuffix(s[:i], "¥") || strings.HasSuffix(s[:i], "￥") {
			return digitsOf(s[i:end])
		}
		j := end
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if strings.HasPrefix(s[j:], "円") {
			return digitsOf(s[i:end])
		}
		// A match starting inside the run would end where it does: none does.
		i = end
	}
	return 0, false
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
