package offers

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

type offerCase struct {
	topic Topic
	want  Offer
	cell  string
	where string // file:line
}

func offerCorpus(tb testing.TB, file string) []offerCase {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	topics := map[string]Topic{}
	for _, t := range Topics {
		topics[t.Column] = t
	}
	says := map[string]Offer{"yes": OfferYes, "no": OfferNo, "null": OfferUnknown}
	var out []offerCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		t, ok := topics[parts[0]]
		want, ok2 := says[parts[1]]
		if len(parts) != 3 || !ok || !ok2 {
			tb.Fatalf("%s:%d: want column, yes|no|null and the cell, tab-separated: %q", file, n, line)
		}
		out = append(out, offerCase{t, want, parts[2], fmt.Sprintf("%s:%d", file, n)})
	}
	return out
}

var offerWord = map[Offer]string{OfferYes: "true", OfferNo: "false", OfferUnknown: "NULL"}

// offerScores renders Read's precision and recall on the corpus as the table docs/data.md shows.
func offerScores(cases []offerCase) (string, []string) {
	var misses []string
	got := map[[2]Offer]int{} // [want, got]
	for _, c := range cases {
		g := Read(c.topic, c.cell)
		got[[2]Offer{c.want, g}]++
		if g != c.want {
			misses = append(misses, fmt.Sprintf("%s: %s %q: %s, want %s", c.where, c.topic.Column, c.cell, offerWord[g], offerWord[c.want]))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| answer | cells | precision | recall |\n|---|---:|---:|---:|\n")
	for _, o := range []Offer{OfferYes, OfferNo, OfferUnknown} {
		var predicted, actual int
		for _, x := range []Offer{OfferYes, OfferNo, OfferUnknown} {
			predicted += got[[2]Offer{x, o}]
			actual += got[[2]Offer{o, x}]
		}
		right := got[[2]Offer{o, o}]
		fmt.Fprintf(&b, "| %s | %d | %s (%d/%d) | %s (%d/%d) |\n", offerWord[o], actual, pct(right, predicted), right, predicted, pct(right, actual), right, actual)
	}
	return b.String(), misses
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// TestOfferCorpus measures Read on the corpus and holds the figures docs/data.md gives: a change
// to the rule that changes them fails here, with the tables to put there.
func TestOfferCorpus(t *testing.T) {
	doc, err := os.ReadFile("../../docs/data.md")
	if err != nil {
		t.Fatal(err)
	}
	var cells int
	for _, file := range []string{"testdata/offers.tsv", "testdata/offers_blind.tsv", "testdata/offers_blind2.tsv"} {
		cases := offerCorpus(t, file)
		cells += len(cases)
		table, misses := offerScores(cases)
		t.Logf("Read on the %d cells of %s:\n%s", len(cases), file, table)
		for _, m := range misses {
			t.Log(m)
		}
		if !strings.Contains(string(doc), "`schema/offers/"+file+"`, "+fmt.Sprint(len(cases))+" cells:\n\n"+table) {
			t.Errorf("docs/data.md does not give these figures for %s (%d cells):\n%s", file, len(cases), table)
		}
	}
	if cells < 200 {
		t.Errorf("the corpus has %d cells; it should have at least 200", cells)
	}
}

// Each offer is a BOOLEAN column of stores_typed read from a text column of stores.
func TestTopicsAreStoresTypedColumns(t *testing.T) {
	r, _ := schema.RelationNamed("stores_typed")
	for _, tp := range Topics {
		var found bool
		for _, c := range r.Columns {
			found = found || c.Name == tp.Column && c.Type == "BOOLEAN" && c.View != nil
		}
		src, ok := schema.Stores.Column(tp.Source)
		if !found || !ok || src.Kind != schema.Text {
			t.Errorf("%s from %s: not a BOOLEAN of stores_typed read from a text column of stores", tp.Column, tp.Source)
		}
	}
}

// The readings the design settles, one per kind.
func TestReadOffer(t *testing.T) {
	topic := map[string]Topic{}
	for _, tp := range Topics {
		topic[tp.Column] = tp
	}
	for _, tt := range []struct {
		column, cell string
		want         Offer
	}{
		{"wheelchair_accessible", "車椅子対応。ただし2階は階段のみ", OfferYes}, // a caveat does not undo the offer
		{"wheelchair_accessible", "地下1階・階段のみのため、車椅子でのご来店は困難です", OfferNo},
		{"wheelchair_accessible", "段差なし", OfferYes},           // a negated barrier is access
		{"wheelchair_accessible", "ベビーカー置き場あり", OfferUnknown}, // about something else
		{"vegan_available", "ヴィーガン対応はしておりません", OfferNo},
		{"vegan_available", "要予約", OfferYes},                // a condition is an offer
		{"vegan_available", "バゲット、カンパーニュは卵・乳不使用", OfferYes}, // an ingredient left out
		{"vegan_available", "お問い合わせください", OfferUnknown},     // an invitation to ask says neither
		{"vegan_available", "グルテンフリーのパンあり", OfferUnknown},   // another diet's
		{"gluten_free_available", "GF options available; shared fryer", OfferYes},
		{"gluten_free_available", "All breads contain wheat", OfferNo},
		{"halal_available", "Not halal certified, but pork-free dishes are available", OfferNo},
		{"nursing_room_available", "授乳室はございません", OfferNo},
		{"nursing_room_available", "Nursing room: not available", OfferNo},
		{"nursing_room_available", "", OfferUnknown},
		{"nursing_room_available", "   \n ", OfferUnknown},
	} {
		if got := Read(topic[tt.column], tt.cell); got != tt.want {
			t.Errorf("%s %q = %s, want %s", tt.column, tt.cell, offerWord[got], offerWord[tt.want])
		}
	}
}

// A cell is read only so far: past maxOfferBytes it is cut, on a character boundary.
func TestReadOfferReadsABoundedPrefix(t *testing.T) {
	long := strings.Repeat("段差なし。", maxOfferBytes) // far past the bound
	if got := Read(Topics[3], long); got != OfferYes {
		t.Errorf("a long cell = %s, want true", offerWord[got])
	}
	if got := Read(Topics[3], strings.Repeat("あ", maxOfferBytes)+"段差なし"); got != OfferUnknown {
		t.Errorf("a phrase past the bound was read: %s", offerWord[got])
	}
}

// FuzzReadOffer: any bytes (cells are the data's) give one of the three answers, the same each time,
// without a panic; the work is bounded by maxOfferBytes and the longest phrase.
func FuzzReadOffer(f *testing.F) {
	for _, c := range offerCorpus(f, "testdata/offers.tsv")[:40] {
		f.Add(c.cell)
	}
	f.Add("\xe6\xae\xb5\xe5\xb7\xae\xe3\x81")
	f.Add("no no no not no")
	f.Fuzz(func(t *testing.T, cell string) {
		for _, tp := range Topics {
			got := Read(tp, cell)
			if got != OfferUnknown && got != OfferYes && got != OfferNo {
				t.Fatalf("Read(%s, %q) = %d", tp.Column, cell, got)
			}
			if again := Read(tp, cell); again != got {
				t.Fatalf("Read(%s, %q) is %d, then %d", tp.Column, cell, got, again)
			}
		}
	})
}
