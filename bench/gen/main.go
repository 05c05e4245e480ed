// Command gen writes a benchmark input directory: the sample stores, events and profiles files copied
// unchanged, plus a products file of any size whose rows look like the real ones (Japanese names and
// descriptions with yen prices, store ids and names taken from the sample stores file), so that
// `ctool ingest` validates and loads it as it would real data.
//
//	go run ./bench/gen -rows 1000000 -src input -out bench/out/input-1000000
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/azabudai/ctool/bench/internal/benchkit"
)

const (
	productsFile = "filtered_product_data.csv"
	storesFile   = "filtered_store_data_カテゴリー情報あり.csv"
)

type store struct{ id, name, category string }

// item is a product kind that suits a store category; tag is the products.tag it is filed under.
type item struct{ name, tag string }

// Items per store category, so a bar does not sell flowers: the LIKE queries then hit realistic mixes.
var items = map[string][]item{
	"retail": {
		{"手巻き寿司セット", "フード"}, {"西京漬け", "フード"}, {"黒毛和牛 すき焼き用", "フード"}, {"季節の果物詰め合わせ", "ギフト"},
		{"ボンボンショコラ", "スイーツ"}, {"焼き菓子アソート", "ギフト"}, {"クロワッサン", "フード"}, {"カンパーニュ", "フード"},
		{"オリジナル エコバッグ", "雑貨"}, {"アートブック", "雑貨"}, {"季節のブーケ", "ギフト"}, {"観葉植物", "雑貨"},
		{"純米吟醸酒", "ドリンク"}, {"国産レモンの炭酸水", "ドリンク"}, {"だし醤油", "フード"}, {"ドライフルーツ", "スイーツ"},
	},
	"restaurant": {
		{"特上にぎり", "フード"}, {"季節のコース", "フード"}, {"ランチ御膳", "フード"}, {"天ぷら蕎麦", "フード"},
		{"ボロネーゼ", "フード"}, {"マルゲリータ", "フード"}, {"麻婆豆腐", "フード"}, {"黒毛和牛 上カルビ", "フード"},
		{"お子様プレート", "フード"}, {"自家製プリン", "スイーツ"}, {"グラスワイン", "ドリンク"}, {"お持ち帰り弁当", "フード"},
	},
	"cafe": {
		{"抹茶パフェ", "スイーツ"}, {"ほうじ茶ラテ", "ドリンク"}, {"カフェラテ", "ドリンク"}, {"ドリップコーヒー豆", "ギフト"},
		{"ジェラート ダブル", "スイーツ"}, {"季節のケーキ", "スイーツ"}, {"抹茶ロールケーキ", "スイーツ"}, {"コールドブリュー", "ドリンク"},
	},
	"bar": {
		{"クラフトジン トニック", "ドリンク"}, {"シングルモルト", "ドリンク"}, {"ナチュラルワイン ボトル", "ドリンク"},
		{"生ハム盛り合わせ", "フード"}, {"チーズプレート", "フード"}, {"季節のカクテル", "ドリンク"},
	},
	"service": {
		{"トリミング体験", "雑貨"}, {"わんちゃん用おやつ", "フード"}, {"ワークショップ参加券", "雑貨"},
		{"キッズ工作キット", "雑貨"}, {"保護者向け ドリップコーヒー", "ドリンク"}, {"オリジナルTシャツ", "雑貨"},
	},
}

var (
	variants = []string{"", "", " 2個入り", " 3個入り", " 6個入り", " 12個入り", " 季節限定", " 小", " 大",
		" 2人前", " ギフトボックス", " 詰め合わせ", " 特製", " プレミアム", " ハーフサイズ"}
	origins = []string{"国産", "北海道産", "京都宇治産", "瀬戸内産", "鹿児島県産", "豊洲市場直送の", "信州産",
		"フランス産", "イタリア産", "契約農家の", "自家製の", "有機栽培の"}
	materials = []string{"素材", "小麦", "バター", "抹茶", "柚子", "黒糖", "和三盆", "本鮪", "黒毛和牛", "旬の野菜",
		"カカオ", "ほうじ茶", "季節の果物", "発酵バター", "米粉", "白味噌"}
	bodies = []string{
		"を使い、職人がひとつひとつ丁寧に仕上げました。",
		"の香りを活かした、甘さ控えめの上品な味わいです。",
		"をふんだんに使った当店の看板商品です。",
		"を贅沢に使用し、素材本来の旨みを引き出しました。",
		"にこだわった、季節ごとに内容が変わる人気の一品。",
		"を合わせた、軽やかで後味のすっきりした仕上がり。",
	}
	tails = []string{
		"ご贈答にもおすすめです。", "お持ち帰りいただけます。", "数量限定のため、お早めにどうぞ。",
		"コーヒーとの相性も抜群です。", "冷蔵で3日ほど日持ちします。", "のし・手提げ袋をご用意しています。",
		"お子様にも人気です。", "", "",
	}
	// Prices in yen; 1,000 is one of them on purpose, since the benchmark query looks for "1,000円".
	prices = []int{300, 380, 420, 500, 540, 680, 800, 980, 1000, 1200, 1500, 1650, 1980, 2160, 2500, 3240,
		3800, 4620, 5184, 6000, 8640, 12100, 15120}
	priceForms = []string{"%s円（税込）", "税込%s円", "¥%s", "%s円", "%s円(税込)〜", "1個 %s円"}
)

func main() {
	rows := flag.Int("rows", 1_000_000, "number of products rows to write")
	src := flag.String("src", "input", "sample input directory to copy the other files from")
	out := flag.String("out", "", "output directory (created; an existing one is replaced)")
	seed := flag.Uint64("seed", 1, "random seed: the same seed writes the same file")
	flag.Parse()
	if *out == "" || *rows < 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -rows N -src DIR -out DIR")
		os.Exit(2)
	}
	if err := run(*rows, *src, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// run builds the directory beside out and renames it into place, so an interrupted run never leaves
// a half-written directory that the benchmark scripts would mistake for a finished one.
func run(rows int, src, out string, seed uint64) error {
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// The sample's other files, unchanged; the products file is written below.
	keep := func(name string) bool { return strings.HasSuffix(name, ".csv") && name != productsFile }
	if err := benchkit.CopyFiles(src, tmp, keep, nil); err != nil {
		return err
	}
	stores, err := readStores(filepath.Join(src, storesFile))
	if err != nil {
		return err
	}
	size, err := writeProducts(filepath.Join(tmp, productsFile), rows, stores, rand.New(rand.NewPCG(seed, seed)))
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Printf("gen: wrote %s: %d products rows, %d bytes (%d bytes/row)\n", out, rows, size, size/int64(max(rows, 1)))
	return nil
}

// readStores takes the ids, names and categories from the sample stores file, so that every
// generated row passes ctool's store_id reference check.
func readStores(path string) ([]store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(records) < 2 {
		return nil, fmt.Errorf("%s: no stores", path)
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	var stores []store
	for _, r := range records[1:] {
		s := store{id: r[col["store_id"]], name: r[col["store_name"]], category: r[col["category"]]}
		if _, ok := items[s.category]; !ok {
			s.category = "retail"
		}
		stores = append(stores, s)
	}
	return stores, nil
}

func writeProducts(path string, rows int, stores []store, rng *rand.Rand) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	counter := &countingWriter{w: f}
	bw := bufio.NewWriterSize(counter, 1<<20)
	w := csv.NewWriter(bw)
	if err := w.Write([]string{"store_id", "store_name", "product_name", "product_description", "tag"}); err != nil {
		return 0, err
	}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	for range rows {
		s := stores[rng.IntN(len(stores))]
		it := items[s.category][rng.IntN(len(items[s.category]))]
		price := fmt.Sprintf(pick(priceForms), commas(prices[rng.IntN(len(prices))]))
		desc := pick(origins) + pick(materials) + pick(bodies) + pick(tails) + price
		if err := w.Write([]string{s.id, s.name, it.name + pick(variants), desc, it.tag}); err != nil {
			return 0, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return counter.n, f.Close()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// commas writes 15120 as "15,120", the way the real descriptions write prices.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
