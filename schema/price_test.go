package schema

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// priceRegexp is the expression price_yen was computed with in DuckDB (RE2, as Go's regexp): PriceYen
// finds what it finds first.
var priceRegexp = regexp.MustCompile(`[¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円`)

// regexpPrice is price_yen as the expression computed it: the match's digits as an INTEGER.
func regexpPrice(s string) (int32, bool) {
	m := priceRegexp.FindString(s)
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, m)
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

func TestPriceYen(t *testing.T) {
	for _, tt := range []struct {
		description string
		want        int32
		ok          bool
	}{
		{"2人前から、15,120円(税込)〜", 15120, true},
		{"1,000円", 1000, true},
		{"税込500円のお手頃価格", 500, true},
		{"¥1,200（税込）", 1200, true},
		{"￥980", 980, true},
		{"2,480円（税込）、送料 500円", 2480, true},
		{"1個 300 円", 300, true},
		{"12 34円", 34, true},
		{"¥ 500", 0, false},
		{"価格は店頭でご確認ください", 0, false},
		{"3種セット", 0, false},
		{"", 0, false},
		{"2147483647円", math.MaxInt32, true},
		{"2147483648円", 0, false},
		{"１，０００円", 0, false}, // full-width digits are not [0-9]
	} {
		yen, ok := PriceYen(tt.description)
		if yen != tt.want || ok != tt.ok {
			t.Errorf("PriceYen(%q) = %d, %v; want %d, %v", tt.description, yen, ok, tt.want, tt.ok)
		}
		if ryen, rok := regexpPrice(tt.description); ryen != yen || rok != ok {
			t.Errorf("PriceYen(%q) = %d, %v; the expression gives %d, %v", tt.description, yen, ok, ryen, rok)
		}
	}
}

// FuzzPriceYen: PriceYen agrees with the expression on any text (descriptions are the data's, so any
// bytes), without the backtracking an expression engine might do: it reads each byte once.
func FuzzPriceYen(f *testing.F) {
	for _, s := range []string{"2人前から、15,120円(税込)〜", "¥1,200", "￥980", "1個 300 円", "12 34円", "1,2,3\t円", "¥¥5", "\xc2", "\xef\xbf", "99999999999円"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		yen, ok := PriceYen(s)
		if ryen, rok := regexpPrice(s); ryen != yen || rok != ok {
			t.Fatalf("PriceYen(%q) = %d, %v; the expression gives %d, %v", s, yen, ok, ryen, rok)
		}
	})
}
