package build

import (
	"database/sql"
	"fmt"
	"testing"
	"unicode"

	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema/fold"
)

// fold() in a migrated database is fold.Fold: for every character of the ranges Fold changes, alone
// and followed by each sound mark (so every kana and mark pair), every white space character between
// words, at the ends and doubled, and samples.
func TestFoldMacroIsFold(t *testing.T) {
	db := mustOpenDB(t, migrations.Main)
	var codes []string // SQL expressions of the texts, chr() of code points
	for _, rg := range fold.Ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			codes = append(codes, fmt.Sprintf("chr(%d)", r))
			for _, m := range fold.SoundMarks {
				codes = append(codes, fmt.Sprintf("chr(%d) || chr(%d)", r, m))
			}
		}
	}
	for r := rune(0); r <= 0x3000; r++ {
		if unicode.IsSpace(r) {
			codes = append(codes, fmt.Sprintf("'a' || chr(%d) || chr(%d) || 'b' || chr(%d)", r, r, r))
		}
	}
	n := 0
	for start := 0; start < len(codes); start += 1000 {
		q := "SELECT x, fold(x) FROM (VALUES "
		for i, c := range codes[start:min(start+1000, len(codes))] {
			if i > 0 {
				q += ", "
			}
			q += "(" + c + ")"
		}
		n += compareFold(t, db, q+") t(x)")
	}
	samples := []string{"ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ", "ＢＡＹ　ＢＲＥＷ  ＤＯＣＫ", "がっこう", "Café", "E\u0301", "\u212A", "か゛き゜",
		"ｶﾞﾑ", "  leading and trailing\u3000", "ア゛", "it's", "１，０００円", "", "\u3000"}
	for _, s := range samples {
		n += compareFold(t, db, "SELECT x, fold(x) FROM (SELECT CAST("+sqlLiteral(s)+" AS VARCHAR)) t(x)")
	}
	if n < 3500 {
		t.Errorf("compared %d texts", n)
	}
	for want, s := range map[string]string{"ジェラート マリーナ": "ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ", "bay brew dock": "ＢＡＹ　ＢＲＥＷ  ＤＯＣＫ", "ガッコウ": "がっこう"} {
		var got string
		if err := db.QueryRow("SELECT fold(?)", s).Scan(&got); err != nil || got != want {
			t.Errorf("fold(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	var null sql.NullString
	if err := db.QueryRow("SELECT fold(CAST(NULL AS VARCHAR))").Scan(&null); err != nil || null.Valid {
		t.Errorf("fold(NULL) = %v, %v; want NULL", null, err)
	}
}

// compareFold runs q, which gives texts and their fold(), and checks each against fold.Fold.
func compareFold(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var x, got string
		if err := rows.Scan(&x, &got); err != nil {
			t.Fatal(err)
		}
		if want := fold.Fold(x); got != want {
			t.Errorf("fold(%+q) = %+q in SQL, fold.Fold gives %+q", x, got, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func sqlLiteral(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += "'"
		}
		out += string(r)
	}
	return out + "'"
}

// BenchmarkFoldMacro folds 100,000 rows of names and descriptions in SQL, per run.
func BenchmarkFoldMacro(b *testing.B) {
	db := mustOpenDB(b, migrations.Main)
	if _, err := db.Exec(`CREATE TABLE texts AS SELECT
		CASE i % 4
			WHEN 0 THEN 'ｼﾞｪﾗｰﾄ ﾏﾘｰﾅ 麻布台ﾋﾙｽﾞ店 ' || i
			WHEN 1 THEN 'ＢＡＹ　ＢＲＥＷ  ＤＯＣＫ　季節限定のクラフトビール ' || i
			WHEN 2 THEN 'ちょこれーとと抹茶のジェラート、ヴィーガン対応 ' || i
			ELSE 'Seasonal gelato made with Hokkaido milk, ' || i END AS x
		FROM range(100000) r(i)`); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"fold", "SELECT sum(length(fold(x))) FROM texts"},
		{"lower", "SELECT sum(length(lower(x))) FROM texts"}, // for scale: a plain string function
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				var n int64
				if err := db.QueryRow(q.sql).Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
