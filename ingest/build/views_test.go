package build

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema/price"
)

// insertStore adds a store with only the columns the views read; the rest are NULL, as empty cells load.
// An empty hours or closures argument is an empty cell too.
func insertStore(tb testing.TB, db *sql.DB, id, hours, closures string) {
	tb.Helper()
	_, err := db.Exec(`INSERT INTO stores (store_id, store_name, category, opening_hours, irregular_closures, extraction_status)
		VALUES (?, ?, 'cafe', ?, ?, 'success')`, id, "店舗"+id, emptyIsNull(hours), emptyIsNull(closures))
	if err != nil {
		tb.Fatal(err)
	}
}

// mustFill stores the typed relations from the rows inserted so far, as ingest does after its load.
func mustFill(tb testing.TB, db *sql.DB) {
	tb.Helper()
	if err := fill(context.Background(), db, migrations.Given{}); err != nil {
		tb.Fatal(err)
	}
}

// emptyIsNull is a cell as the load stores it.
func emptyIsNull(cell string) any {
	if cell == "" {
		return nil
	}
	return cell
}

func everyDay(intervals string) string {
	var days []string
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		days = append(days, fmt.Sprintf("%q: %s", d, intervals))
	}
	return "{" + strings.Join(days, ", ") + "}"
}

func TestIsOpen(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	// 2025-10-03 is a Friday.
	insertStore(t, db, "SPLIT", everyDay(`[{"open": "11:30", "close": "14:30"}, {"open": "17:30", "close": "22:00"}]`), "[]")
	insertStore(t, db, "BAR", `{"thursday": [{"open": "18:00", "close": "02:00"}], "friday": [{"open": "18:00", "close": "02:00"}], "saturday": []}`, "[]")
	insertStore(t, db, "CLOSEDMON", `{"monday": [], "tuesday": [{"open": "10:00", "close": "20:00"}]}`, "[]")
	insertStore(t, db, "CLOSURE", everyDay(`[{"open": "10:00", "close": "20:00"}]`), `[{"type": "holiday", "date": "2025-10-04", "reason": "棚卸し"}]`)
	insertStore(t, db, "BARCLOSURE", everyDay(`[{"open": "20:00", "close": "03:00"}]`), `[{"type": "private_event", "date": "2025-10-03", "reason": "貸切"}]`)
	insertStore(t, db, "UNKNOWN", "", "")
	// Late-night notation: 26:00 is 02:00 the next day; an opening at 24:00 is the next day's.
	insertStore(t, db, "LATE", `{"friday": [{"open": "18:00", "close": "26:00"}, {"open": "24:00", "close": "29:00"}]}`, "[]")
	// Hours written as text, with holidays: 2025-10-13 (Monday) is スポーツの日.
	insertStore(t, db, "TEXT", "平日 10:00〜20:00／土日祝 11:00〜19:00", "[]")
	insertStore(t, db, "UNREADABLE", "11:00〜売り切れ次第終了", "")
	mustFill(t, db)

	tests := []struct {
		store, ts string
		want      bool
	}{
		{"SPLIT", "2025-10-03 11:29:59", false},
		{"SPLIT", "2025-10-03 11:30", true},
		{"SPLIT", "2025-10-03 14:29", true},
		{"SPLIT", "2025-10-03 14:30", false}, // closing time is exclusive
		{"SPLIT", "2025-10-03 16:00", false}, // between lunch and dinner
		{"SPLIT", "2025-10-03 21:59", true},
		{"BAR", "2025-10-02 23:30", true},  // Thursday night
		{"BAR", "2025-10-03 01:59", true},  // Thursday's interval, after midnight
		{"BAR", "2025-10-03 02:00", false}, // closed at 02:00
		{"BAR", "2025-10-04 01:00", true},  // Friday's interval on Saturday morning
		{"BAR", "2025-10-04 23:00", false}, // closed on Saturday
		{"BAR", "2025-10-05 01:00", false}, // Saturday had no interval to run past midnight
		{"CLOSEDMON", "2025-10-06 12:00", false},
		{"CLOSEDMON", "2025-10-07 12:00", true},
		{"CLOSURE", "2025-10-03 12:00", true},
		{"CLOSURE", "2025-10-04 12:00", false}, // irregular closure
		{"CLOSURE", "2025-10-05 12:00", true},
		{"BARCLOSURE", "2025-10-03 21:00", false}, // closed for the evening of the closure date
		{"BARCLOSURE", "2025-10-04 01:00", false}, // and for that interval after midnight
		{"BARCLOSURE", "2025-10-03 01:00", true},  // the previous night's interval is unaffected
		{"UNKNOWN", "2025-10-03 12:00", false},
		{"LATE", "2025-10-03 23:00", true},
		{"LATE", "2025-10-04 01:59", true},  // Friday's 26:00 close
		{"LATE", "2025-10-04 04:30", true},  // Friday's 24:00-29:00, on Saturday morning
		{"LATE", "2025-10-04 05:00", false}, // 29:00 is 05:00
		{"LATE", "2025-10-04 18:30", false}, // nothing on Saturday
		{"TEXT", "2025-10-10 19:30", true},  // a weekday, Friday
		{"TEXT", "2025-10-11 19:30", false}, // Saturday closes at 19:00
		{"TEXT", "2025-10-13 10:30", false}, // a holiday Monday opens at 11:00
		{"TEXT", "2025-10-13 19:30", false},
		{"TEXT", "2025-10-13 11:30", true},
		{"TEXT", "2025-10-14 10:30", true}, // the Tuesday after
		{"UNREADABLE", "2025-10-10 12:00", false},
	}
	for _, tt := range tests {
		var got bool
		if err := db.QueryRow(`SELECT is_open(?, CAST(? AS TIMESTAMP))`, tt.store, tt.ts).Scan(&got); err != nil {
			t.Fatalf("%s at %s: %v", tt.store, tt.ts, err)
		}
		if got != tt.want {
			t.Errorf("is_open(%s, %s) = %v, want %v", tt.store, tt.ts, got, tt.want)
		}
	}
	// Called with the caller's own unqualified store_id, as agents write it: the macro must not bind
	// that name to store_hours.store_id inside its subquery.
	got := rowsOf(t, db, `SELECT store_id FROM stores WHERE is_open(store_id, TIMESTAMP '2025-10-03 16:00') ORDER BY store_id`)
	if want := "CLOSURE\nTEXT"; got != want {
		t.Errorf("stores open at 16:00 = %q, want %q", got, want)
	}
}

// rowsOf renders a query's rows as text lines, for whole-output comparison.
func rowsOf(tb testing.TB, db *sql.DB, query string, args ...any) string {
	tb.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	_, values, err := querytest.Rows(rows)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []string
	for _, vals := range values {
		var cells []string
		for _, v := range vals {
			cells = append(cells, fmt.Sprint(v))
		}
		lines = append(lines, strings.Join(cells, "|"))
	}
	return strings.Join(lines, "\n")
}

func TestStoreHoursAndClosures(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	insertStore(t, db, "A", `{"monday": [{"open": "11:30", "close": "14:30"}, {"open": "17:30", "close": "22:00"}], "tuesday": [], "friday": [{"open": "18:00", "close": "02:00"}]}`,
		`[{"type": "holiday", "date": "2025-10-04", "reason": "設備点検"}, {"type": "maintenance", "date": "2025-10-01", "reason": null}]`)
	insertStore(t, db, "B", "", "")
	mustFill(t, db)
	got := rowsOf(t, db, `SELECT store_id, day, CAST(opens AS VARCHAR), CAST(closes AS VARCHAR), overnight FROM store_hours`)
	want := "A|monday|11:30:00|14:30:00|false\nA|monday|17:30:00|22:00:00|false\nA|friday|18:00:00|02:00:00|true"
	if got != want {
		t.Errorf("store_hours:\n%s\nwant:\n%s", got, want)
	}
	got = rowsOf(t, db, `SELECT store_id, strftime(date, '%Y-%m-%d'), type, coalesce(reason, 'NULL') FROM store_closures`)
	want = "A|2025-10-01|maintenance|NULL\nA|2025-10-04|holiday|設備点検"
	if got != want {
		t.Errorf("store_closures:\n%s\nwant:\n%s", got, want)
	}
}

func TestStoresTyped(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	insertStore(t, db, "A", "", "")
	insertStore(t, db, "B", "", "")
	if _, err := db.Exec(`UPDATE stores SET Biz_Entertainment_Available = 'TRUE', pets_allowed = NULL,
		target_audience = '["ファミリー", "ビジネス"]',
		parking = '{"available": true, "capacity": 120, "charge": "2時間無料"}',
		private_room = '{"available": false, "capacity": null, "charge": null}',
		kids_info = '{"kids_menu": true, "highchair": null, "diaper_changing": false}'
		WHERE store_id = 'A'`); err != nil {
		t.Fatal(err)
	}
	mustFill(t, db)
	got := rowsOf(t, db, `SELECT store_id, Biz_Entertainment_Available, pets_allowed, target_audience,
		parking_available, parking_capacity, private_room_available, private_room_capacity,
		kids_menu, highchair, diaper_changing FROM stores_typed ORDER BY store_id`)
	want := "A|true|<nil>|[ファミリー ビジネス]|true|120|false|<nil>|true|<nil>|false\n" +
		"B|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>"
	if got != want {
		t.Errorf("stores_typed:\n%s\nwant:\n%s", got, want)
	}
}

func TestEventsTyped(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	if _, err := db.Exec(`INSERT INTO events VALUES
		('一日', NULL, '2025-10-05', '{"venue": "FREUDE by BMW", "address": null}', NULL, NULL, NULL, NULL, NULL, '{"is_free": true, "amount": null, "notes": null}', 'True', '["家族", "子供"]'),
		('期間', NULL, '2025-09-17/2025-10-19', NULL, NULL, NULL, NULL, NULL, NULL, '{"is_free": null}', NULL, '[]'),
		('不明', NULL, '2026-12-01', '{"venue": null, "address": "港区麻布台1-3-1"}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`); err != nil {
		t.Fatal(err)
	}
	mustFill(t, db)
	got := rowsOf(t, db, `SELECT event_name, strftime(start_date, '%Y-%m-%d'), strftime(end_date, '%Y-%m-%d'), venue, address,
		is_free, registration_required, target_audience FROM events_typed ORDER BY start_date`)
	want := "期間|2025-09-17|2025-10-19|<nil>|<nil>|<nil>|<nil>|[]\n" +
		"一日|2025-10-05|2025-10-05|FREUDE by BMW|<nil>|true|true|[家族 子供]\n" +
		"不明|2026-12-01|2026-12-01|<nil>|港区麻布台1-3-1|<nil>|<nil>|<nil>"
	if got != want {
		t.Errorf("events_typed:\n%s\nwant:\n%s", got, want)
	}
}

func TestProductsTypedPrice(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	tests := []struct {
		description string
		want        string
	}{
		{"2人前から、15,120円(税込)〜", "15120"},
		{"1,000円", "1000"},
		{"税込500円のお手頃価格", "500"},
		{"¥1,200（税込）", "1200"},
		{"￥980", "980"},
		{"2,480円（税込）、送料 500円", "2480"},
		{"1個 300 円", "300"},
		{"価格は店頭でご確認ください", "<nil>"},
		{"3種セット", "<nil>"},
	}
	for i, tt := range tests {
		if _, err := db.Exec(`INSERT INTO products VALUES ('S', '店', ?, ?, 'フード')`, fmt.Sprint(i), tt.description); err != nil {
			t.Fatal(err)
		}
	}
	mustFill(t, db)
	for i, tt := range tests {
		got := rowsOf(t, db, `SELECT price_yen FROM products_typed WHERE product_name = ?`, fmt.Sprint(i))
		if got != tt.want {
			t.Errorf("price_yen(%q) = %s, want %s", tt.description, got, tt.want)
		}
	}
}

// products_typed's prices are price.Read of each row's description, stored by Fill:
// price_max_yen only where the description lists several prices.
func TestProductsTypedPrices(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	descriptions := []string{
		"2人前から、15,120円(税込)〜", "1,000円", "税込500円のお手頃価格", "¥1,200（税込）", "２９８円", "１，２００円",
		"650 yen", "本体1,900円＋税（税込2,090円）", "S 500円 / M 600円 / L 700円", "時価", "価格は店頭でご確認ください", "",
		"3,000円以上のお買い上げで送料無料", "99999999999円",
	}
	for i, d := range descriptions {
		if _, err := db.Exec(`INSERT INTO products VALUES ('S', 'store', ?, ?, NULL)`, fmt.Sprint("p", i), emptyIsNull(d)); err != nil {
			t.Fatal(err)
		}
	}
	mustFill(t, db)
	var want []string
	for _, d := range descriptions {
		p := price.Read(d)
		switch {
		case !p.OK:
			want = append(want, "<nil>|<nil>")
		case p.High == p.Low:
			want = append(want, fmt.Sprintf("%d|<nil>", p.Low))
		default:
			want = append(want, fmt.Sprintf("%d|%d", p.Low, p.High))
		}
	}
	got := rowsOf(t, db, `SELECT price_yen, price_max_yen FROM products_typed`)
	if got != strings.Join(want, "\n") {
		t.Errorf("products_typed prices:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The figures the rule is for, spelt out.
	if !strings.Contains(got, "298|<nil>\n1200|<nil>\n650|<nil>\n2090|<nil>\n500|700\n<nil>|<nil>") {
		t.Errorf("products_typed prices:\n%s", got)
	}
}

// The offers of stores_typed are offers.Read of each store's own cells, empty cells NULL.
func TestStoresTypedOffers(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	for _, id := range []string{"A", "B", "C"} {
		insertStore(t, db, id, "", "")
	}
	if _, err := db.Exec(`UPDATE stores SET vegan_info = 'ヴィーガン対応はしておりません', halal_info = 'ポークフリーのコースは要相談',
		accessibility = '地下1階・階段のみのため、車椅子でのご来店は困難です', nursing_room = '授乳室はございません' WHERE store_id = 'A';
		UPDATE stores SET vegan_info = 'Vegan menu on request', gluten_free_info = 'shared fryer',
		accessibility = '車椅子対応。ただし2階は階段のみ', nursing_room = 'お問い合わせください' WHERE store_id = 'B'`); err != nil {
		t.Fatal(err)
	}
	mustFill(t, db)
	got := rowsOf(t, db, `SELECT store_id, vegan_available, halal_available, gluten_free_available, wheelchair_accessible,
		nursing_room_available FROM stores_typed ORDER BY store_id`)
	want := "A|false|true|<nil>|false|false\n" +
		"B|true|<nil>|true|true|<nil>\n" +
		"C|<nil>|<nil>|<nil>|<nil>|<nil>"
	if got != want {
		t.Errorf("stores_typed offers:\n%s\nwant:\n%s", got, want)
	}
}

// events_typed.store_id is the store the venue names, store_name beside it; other venues are NULL.
func TestEventsTypedStore(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	insertStore(t, db, "STR-1", "", "")
	insertStore(t, db, "STR-2", "", "")
	if _, err := db.Exec(`UPDATE stores SET store_name = '洋菓子店クリオロ' WHERE store_id = 'STR-1';
		UPDATE stores SET store_name = '麻布台ヒルズマーケット' WHERE store_id = 'STR-2'`); err != nil {
		t.Fatal(err)
	}
	for i, location := range []string{
		`{"venue": "洋菓子店クリオロ", "address": null}`,
		`{"venue": "麻布台ヒルズマーケット キッチンスタジオ", "address": null}`,
		`{"venue": "麻布台ヒルズ 中央広場", "address": null}`,
		`{"venue": null, "address": null}`,
		``,
		`{"venue": "ｸﾘｵﾛ 六本木", "address": null}`,
	} {
		if _, err := db.Exec(`INSERT INTO events (event_name, date_time, location) VALUES (?, '2025-10-01', ?)`, fmt.Sprint(i), emptyIsNull(location)); err != nil {
			t.Fatal(err)
		}
	}
	mustFill(t, db)
	got := rowsOf(t, db, `SELECT event_name, store_id, store_name FROM events_typed ORDER BY event_name`)
	want := "0|STR-1|洋菓子店クリオロ\n1|STR-2|麻布台ヒルズマーケット\n2|<nil>|<nil>\n3|<nil>|<nil>\n4|<nil>|<nil>\n5|<nil>|<nil>"
	if got != want {
		t.Errorf("events_typed stores:\n%s\nwant:\n%s", got, want)
	}
}
