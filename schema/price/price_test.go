package price

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

type priceCase struct {
	want  Price
	cell  string
	where string // file:line
}

// priceCorpus reads testdata/prices.tsv: low, high ("-" for low's), unread (0 or 1) and the cell.
func priceCorpus(tb testing.TB) []priceCase {
	tb.Helper()
	const file = "testdata/prices.tsv"
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []priceCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 4)
		if len(parts) != 4 || parts[2] != "0" && parts[2] != "1" {
			tb.Fatalf("%s:%d: want low, high, unread and the cell, tab-separated: %q", file, n, line)
		}
		want := Price{Unread: parts[2] == "1"}
		if parts[0] != "-" {
			low, err1 := strconv.ParseInt(parts[0], 10, 32)
			high, err2 := low, error(nil)
			if parts[1] != "-" {
				high, err2 = strconv.ParseInt(parts[1], 10, 32)
			}
			if err1 != nil || err2 != nil || high <= low && parts[1] != "-" {
				tb.Fatalf("%s:%d: bad low or high: %q", file, n, line)
			}
			want.Low, want.High, want.OK = int32(low), int32(high), true
		} else if parts[1] != "-" {
			tb.Fatalf("%s:%d: a high without a low: %q", file, n, line)
		}
		out = append(out, priceCase{want, parts[3], fmt.Sprintf("%s:%d", file, n)})
	}
	return out
}

// priceText is a Price as the corpus writes it: "500", "500-700", "-", with " unread".
func priceText(p Price) string {
	s := "-"
	switch {
	case p.OK && p.High != p.Low:
		s = fmt.Sprintf("%d-%d", p.Low, p.High)
	case p.OK:
		s = fmt.Sprint(p.Low)
	}
	if p.Unread {
		s += " unread"
	}
	return s
}

// priceRatio is a/b, 1 when b is 0.
func priceRatio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// TestPriceCorpus measures Read on the corpus. Precision: of the cells it gives a price, the
// share whose low and high are both right; recall: of the cells with a price, the share read so.
// Unread is measured alike. The floors sit a little below what the rule reaches: a change that
// lowers them fails here.
func TestPriceCorpus(t *testing.T) {
	cases := priceCorpus(t)
	if len(cases) < 200 {
		t.Errorf("the corpus has %d cells; it should have at least 200", len(cases))
	}
	var given, priced, right, unreadGot, unreadWant, unreadRight int
	for _, c := range cases {
		got := Read(c.cell)
		exact := got.OK && c.want.OK && got.Low == c.want.Low && got.High == c.want.High
		if got.OK {
			given++
		}
		if c.want.OK {
			priced++
		}
		if exact {
			right++
		}
		if got.Unread {
			unreadGot++
		}
		if c.want.Unread {
			unreadWant++
		}
		if got.Unread && c.want.Unread {
			unreadRight++
		}
		if got.OK != c.want.OK || got.OK && !exact || got.Unread != c.want.Unread {
			t.Logf("%s: %q: %s, want %s", c.where, c.cell, priceText(got), priceText(c.want))
		}
	}
	precision, recall := priceRatio(right, given), priceRatio(right, priced)
	uPrecision, uRecall := priceRatio(unreadRight, unreadGot), priceRatio(unreadRight, unreadWant)
	t.Logf("Read on %d cells: precision %.3f (%d/%d), recall %.3f (%d/%d); Unread precision %.3f (%d/%d), recall %.3f (%d/%d)",
		len(cases), precision, right, given, recall, right, priced, uPrecision, unreadRight, unreadGot, uRecall, unreadRight, unreadWant)
	if precision < 0.98 || recall < 0.97 || uPrecision < 0.95 || uRecall < 0.95 {
		t.Errorf("below the floors: precision 0.98, recall 0.97, and 0.95 for Unread")
	}
}

// The readings the rule settles, one per kind.
func TestReadPrice(t *testing.T) {
	for _, tt := range []struct {
		cell string
		want Price
	}{
		{"２９８円", Price{298, 298, true, false}},                               // full-width digits
		{"１，２００円", Price{1200, 1200, true, false}},                           // and separators
		{"650 yen", Price{650, 650, true, false}},                            // a currency word after
		{"JPY 1,200", Price{1200, 1200, true, false}},                        // or before
		{"¥ 980", Price{980, 980, true, false}},                              // a sign, spaced
		{"価格：1,200", Price{1200, 1200, true, false}},                         // a price word makes a bare number money
		{"1,200（税込）", Price{1200, 1200, true, false}},                        // so does a tax note
		{"1日10食限定", Price{}},                                                 // a count has no currency
		{"本体1,900円＋税（税込2,090円）", Price{2090, 2090, true, false}},             // tax included wins
		{"1,000円（税込1,100円）", Price{1100, 1100, true, false}},                 // unmarked, 10% below it
		{"ランチ 1,000円(税込) / ディナー 3,000円(税別)", Price{1000, 3000, true, false}}, // not the same item
		{"1,200円+税", Price{1200, 1200, true, false}},                         // pre-tax alone counts
		{"S 500円 / M 600円 / L 700円", Price{500, 700, true, false}},           // sizes
		{"1,000〜2,000円", Price{1000, 2000, true, false}},                     // a range shares its currency
		{"1〜2万円", Price{10000, 20000, true, false}},                          // and its scale
		{"1.2万円", Price{12000, 12000, true, false}},
		{"1万2千円", Price{12000, 12000, true, false}},
		{"1、000円", Price{1000, 1000, true, false}},             // '、' before 000 groups thousands
		{"1、500円", Price{Unread: true}},                        // elsewhere it might list: refused
		{"3,000円以上のお買い上げで送料無料", Price{}},                       // a threshold
		{"500円引き", Price{}},                                    // a discount
		{"1,000円分のクーポン", Price{}},                              // a value given
		{"2,480円（税込）、送料 500円", Price{2480, 2480, true, false}}, // a fee
		{"通常1,200円のところ980円", Price{980, 980, true, false}},     // a former price
		{"ラーメン 800円（大盛り+100円）", Price{800, 800, true, false}},  // an add-on
		{"大盛り +100円", Price{100, 100, true, false}},            // alone, it is the price
		{"時価", Price{Unread: true}},
		{"価格はお問い合わせください", Price{Unread: true}},
		{"Market price", Price{Unread: true}},
		{"ASK", Price{Unread: true}},                      // in capitals, where a price goes
		{"Ask our staff about allergens", Price{}},        // an invitation about something else
		{"唐揚げ 500円 / 刺身 時価", Price{500, 500, true, true}}, // one read, one not
		{"2147483648円", Price{Unread: true}},              // too large for an INTEGER
		{"2147483647円", Price{math.MaxInt32, math.MaxInt32, true, false}},
		{"¥1002002011021122000000000", Price{Unread: true}}, // past int64 too
		{"", Price{}},
	} {
		if got := Read(tt.cell); got != tt.want {
			t.Errorf("Read(%q) = %s, want %s", tt.cell, priceText(got), priceText(tt.want))
		}
	}
}

// Yen is Read's Low and OK.
func TestPriceYen(t *testing.T) {
	for _, tt := range []struct {
		description string
		want        int32
		ok          bool
	}{
		{"2人前から、15,120円(税込)〜", 15120, true},
		{"税込500円のお手頃価格", 500, true},
		{"S 500円 / M 600円", 500, true},
		{"１，０００円", 1000, true},
		{"価格は店頭でご確認ください", 0, false},
		{"3種セット", 0, false},
		{"", 0, false},
	} {
		yen, ok := Yen(tt.description)
		if yen != tt.want || ok != tt.ok {
			t.Errorf("Yen(%q) = %d, %v; want %d, %v", tt.description, yen, ok, tt.want, tt.ok)
		}
	}
}

// A description is read only so far: past maxPriceBytes it is cut, on a character boundary.
func TestReadPriceReadsABoundedPrefix(t *testing.T) {
	if got := Read(strings.Repeat("あ", maxPriceBytes) + "1,000円"); got.OK {
		t.Errorf("a price past the bound was read: %s", priceText(got))
	}
	long := "1,000円 " + strings.Repeat("S 500円 / ", maxPriceBytes) // more amounts than are kept
	if got := Read(long); !got.OK || got.Low != 500 || got.High != 1000 {
		t.Errorf("a long description = %s, want 500-1000", priceText(got))
	}
}

// FuzzPriceYen: Yen is Read's Low and OK on any text (descriptions are the data's).
func FuzzPriceYen(f *testing.F) {
	for _, s := range []string{"2人前から、15,120円(税込)〜", "¥1,200", "￥980", "1個 300 円", "12 34円", "1,2,3\t円", "¥¥5", "\xc2", "\xef\xbf", "99999999999円"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		yen, ok := Yen(s)
		if p := Read(s); yen != p.Low || ok != p.OK {
			t.Fatalf("Yen(%q) = %d, %v; Read gives %+v", s, yen, ok, p)
		}
	})
}

// FuzzReadPrice: any bytes give a price in order, or none, the same each time, without a panic.
func FuzzReadPrice(f *testing.F) {
	for _, c := range priceCorpus(f) {
		f.Add(c.cell)
	}
	f.Add("1万1万1万円")
	f.Add("１．５万円〜２万円")
	f.Add("\xef\xbc\x91\xef\xbc")
	f.Add("9,999,999,999,999,999,999円")
	f.Add("\\1002002011021122000000000") // once read past int64, to a negative price
	f.Fuzz(func(t *testing.T, s string) {
		p := Read(s)
		if p.OK && (p.Low < 0 || p.High < p.Low) || !p.OK && (p.Low != 0 || p.High != 0) {
			t.Fatalf("Read(%q) = %+v", s, p)
		}
		if again := Read(s); again != p {
			t.Fatalf("Read(%q) is %+v, then %+v", s, p, again)
		}
	})
}

// oldPriceYen is Yen as it was: the first match of priceRegexp, read in one pass. It stays as
// the benchmarks' baseline.
func oldPriceYen(s string) (int32, bool) {
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		end := i
		for end < len(s) && (isDigit(s[end]) || s[end] == ',') {
			end++
		}
		j := end
		for j < len(s) && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
			j++
		}
		if strings.HasSuffix(s[:i], "¥") || strings.HasSuffix(s[:i], "￥") || strings.HasPrefix(s[j:], "円") {
			var n int64
			for k := i; k < end; k++ {
				if isDigit(s[k]) {
					if n = n*10 + int64(s[k]-'0'); n > math.MaxInt32 {
						return 0, false
					}
				}
			}
			return int32(n), true
		}
		i = end
	}
	return 0, false
}

// priceRegexp is the expression price_yen was computed with in DuckDB before Yen.
var priceRegexp = regexp.MustCompile(`[¥￥][0-9][0-9,]*|[0-9][0-9,]*\s*円`)

// The baseline is the old rule: it finds what the expression finds.
func TestOldPriceYenIsTheExpression(t *testing.T) {
	for _, c := range priceCorpus(t) {
		m := priceRegexp.FindString(c.cell)
		n, err := strconv.ParseInt(strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, m), 10, 64)
		want := err == nil && n <= math.MaxInt32
		if yen, ok := oldPriceYen(c.cell); ok != want || ok && int64(yen) != n {
			t.Errorf("oldPriceYen(%q) = %d, %v; the expression finds %q", c.cell, yen, ok, m)
		}
	}
}

// benchProse are descriptions as long as a shop page's, in English: most words start no phrase.
var benchProse = []string{
	"Handmade soba noodles made every morning from buckwheat grown in Nagano, served with seasonal tempura and a light dipping sauce. Limited to 20 servings a day. 1,200 yen",
	"Organic cotton tote bag, printed by hand in our Kyoto workshop with water-based inks. Roomy enough for a laptop and groceries. JPY 3,500 (tax included)",
	"Our signature blend: medium roast beans from Ethiopia and Guatemala, with notes of cocoa, citrus and brown sugar. Great for pour over and french press. 200g bag.",
	"Matcha latte made with ceremonial grade matcha from Uji and your choice of oat or whole milk. Available hot or iced. Small 550 yen / Large 650 yen",
	"Gift box of six assorted wagashi, each shaped by our confectioner to suit the season. Keeps for five days. Perfect as a souvenir. Price: 2400",
	"Vintage denim jacket from the 1980s, size M, excellent condition with a soft faded wash. One of a kind. Ask staff for details on fit and care.",
	"Leather wallet, vegetable tanned and stitched by hand, that darkens beautifully with use. Free shipping on orders over 5,000 yen. 8,800 yen",
	"Craft beer flight of four 5 oz pours from small breweries around Tokyo. The lineup changes weekly, so ask the bartender what is on tap today.",
	"Seasonal fruit tart with a crisp butter crust, vanilla custard and whatever fruit is best at the market this week. Whole tart or by the slice.",
	"Private tea ceremony experience for up to four guests, including matcha, seasonal sweets and an introduction to the etiquette. 90 minutes.",
	"Fresh sea urchin from Hokkaido, served over rice with a little wasabi and soy. Supply depends on the catch, so the price is market price.",
	"Kids' wooden puzzle set, made from Japanese cypress and finished with natural oil. Safe for ages 3 and up. Set of 3 puzzles for 4,500 yen.",
}

// benchCells are the corpus's cells, all of them and those of ASCII only.
func benchCells(b *testing.B) (all, ascii []string) {
	for _, c := range priceCorpus(b) {
		all = append(all, c.cell)
		if strings.IndexFunc(c.cell, func(r rune) bool { return r >= 0x80 }) < 0 {
			ascii = append(ascii, c.cell)
		}
	}
	return all, ascii
}

// BenchmarkPrices is Read over the corpus's cells (all, and those of ASCII only: short, and
// thick with amounts and phrases) and over benchProse; BenchmarkOldPriceYen is the old rule on the
// same. An op reads every cell of the set once.
func BenchmarkPrices(b *testing.B) {
	all, ascii := benchCells(b)
	b.Run("ascii", func(b *testing.B) {
		for b.Loop() {
			for _, s := range ascii {
				Read(s)
			}
		}
	})
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			for _, s := range all {
				Read(s)
			}
		}
	})
	b.Run("prose", func(b *testing.B) {
		for b.Loop() {
			for _, s := range benchProse {
				Read(s)
			}
		}
	})
}

func BenchmarkOldPriceYen(b *testing.B) {
	all, ascii := benchCells(b)
	b.Run("ascii", func(b *testing.B) {
		for b.Loop() {
			for _, s := range ascii {
				oldPriceYen(s)
			}
		}
	})
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			for _, s := range all {
				oldPriceYen(s)
			}
		}
	})
	b.Run("prose", func(b *testing.B) {
		for b.Loop() {
			for _, s := range benchProse {
				oldPriceYen(s)
			}
		}
	})
}
