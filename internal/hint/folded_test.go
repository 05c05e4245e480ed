package hint

import (
	"context"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// TestFoldedHint: a condition on a free-text column that matches no row as written, but does once
// both sides are folded, gets the folded condition with its rows; one that matches as written, one on
// a label, a GLOB, and a column of more values than the hint folds get none.
func TestFoldedHint(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	const why = " (fold() folds width, kana and case)"
	keep := maxFoldValues
	t.Cleanup(func() { maxFoldValues = keep })
	for _, tc := range []struct {
		sql, want string
		maxValues int // maxFoldValues for the case; 0 keeps it
	}{
		{sql: "SELECT store_name FROM stores WHERE store_name LIKE '%ﾏｰｹｯﾄ%'",
			want: "fold(store_name) LIKE fold('%ﾏｰｹｯﾄ%') matches 1 row of stores: '麻布台ヒルズマーケット'" + why},
		{sql: "SELECT store_name FROM stores s WHERE s.category = 'bar' AND lower(s.store_name) LIKE '%ばー%'",
			want: "fold(store_name) LIKE fold('%ばー%') matches 2 rows of stores: 'バー ルミエール', 'ワインバー ヴィーニョ'" + why},
		{sql: "SELECT store_name FROM stores_typed WHERE store_name = 'じぇらてりあ　そるべ'",
			want: "fold(store_name) = fold('じぇらてりあ　そるべ') matches 1 row of stores_typed: 'ジェラテリア ソルベ'" + why},
		{sql: "SELECT product_name FROM products WHERE product_name ILIKE '%ｷﾞﾌﾄ%'",
			want: "fold(product_name) ILIKE fold('%ｷﾞﾌﾄ%') matches 11 rows of products: 'ギフトチケット', 'ショコラ・ギフト券', 'テイクアウト 点心ギフト' and 8 more values" + why},
		{sql: "SELECT store_name FROM stores WHERE contains(store_name, 'ｱﾗﾋﾞｶ')",
			want: "contains(fold(store_name), fold('ｱﾗﾋﾞｶ')) matches 1 row of stores: 'アラビカ 麻布台ヒルズ'" + why},
		{sql: "SELECT store_name FROM stores WHERE store_name LIKE '%ﾏｰｹｯﾄ%'", maxValues: 5},
		{sql: "SELECT store_name FROM stores WHERE store_name LIKE '%マーケット%' AND category = 'cafe'"},
		{sql: "SELECT store_name FROM stores WHERE category = 'ＢＡＲ'"},
		{sql: "SELECT store_name FROM stores WHERE store_name GLOB '*ﾏｰｹｯﾄ*'"},
		{sql: "SELECT store_name FROM stores WHERE store_name LIKE '%nosuch%'"},
	} {
		maxFoldValues = keep
		if tc.maxValues > 0 {
			maxFoldValues = tc.maxValues
		}
		p, ok := newPass(ctx, conn, nil, Query{Text: tc.sql, Dataset: schema.Stores})
		if !ok {
			t.Fatalf("%s: no pass", tc.sql)
		}
		var got []string
		for i := range p.conds {
			for _, h := range folded.run(p, i) {
				got = append(got, h.Text)
			}
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, g, tc.want)
		}
	}
}
