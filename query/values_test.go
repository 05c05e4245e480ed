package query

import (
	"database/sql"
	"testing"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/textout"
	_ "github.com/duckdb/duckdb-go/v2"
)

// TestJSONValue reads one value of each DuckDB type through the driver, as the engine does, and
// compares the JSON it becomes.
func TestJSONValue(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SET TimeZone = 'Asia/Tokyo'"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, expr, want string
	}{
		{"integer", "42", `42`},
		{"hugeint", "170141183460469231731687303715884105727::HUGEINT", `170141183460469231731687303715884105727`},
		{"decimal", "12.50::DECIMAL(10,2)", `12.5`},
		{"decimal past float64", "12345678901234567.89::DECIMAL(38,2)", `12345678901234567.89`},
		{"double", "0.25::DOUBLE", `0.25`},
		{"nan", "'NaN'::DOUBLE", `"NaN"`},
		{"infinity", "'Infinity'::DOUBLE", `"+Inf"`},
		{"negative infinity", "'-Infinity'::FLOAT", `"-Inf"`},
		{"boolean", "true", `true`},
		{"null", "NULL::VARCHAR", `null`},
		{"text with html", "'<a&b>'", `"<a&b>"`},
		{"date", "DATE '2025-10-15'", `"2025-10-15"`},
		{"time", "TIME '13:45:30'", `"13:45:30"`},
		{"timestamp", "TIMESTAMP '2025-10-15 13:45:30.5'", `"2025-10-15T13:45:30.5"`},
		{"timestamptz", "TIMESTAMPTZ '2025-10-15 04:45:30+00'", `"2025-10-15T13:45:30+09:00"`},
		{"interval", "INTERVAL '1 month 2 days 3 hours'", `"1 months 2 days 3h0m0s"`},
		{"uuid", "'0d3f1d4a-62b8-4b51-9a43-0c2f6e8d9b10'::UUID", `"0d3f1d4a-62b8-4b51-9a43-0c2f6e8d9b10"`},
		{"blob text", "'abc'::BLOB", `"abc"`},
		{"blob binary", `'\xFF\x00'::BLOB`, `"/wA="`},
		{"list", "[1, 2, NULL]", `[1,2,null]`},
		{"list of dates", "[DATE '2025-10-01', DATE '2025-10-02']", `["2025-10-01","2025-10-02"]`},
		{"fixed array", "[1, 2]::INTEGER[2]", `[1,2]`},
		{"struct keeps no order but its keys'", "{'b': 1, 'a': 'x'}", `{"a":"x","b":1}`},
		{"map keeps its order", "MAP {'z': 1, 'a': 2}", `{"z":1,"a":2}`},
		{"map with integer keys", "MAP {2: 'two', 1: 'one'}", `{"2":"two","1":"one"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.Query("SELECT " + tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			types, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			if !rows.Next() {
				t.Fatal("no row")
			}
			var raw any
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
			got, err := textout.Marshal(jsonValue(database.Value(raw), types[0].DatabaseTypeName(), &budget{left: MaxResultBytes}))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("SELECT %s (%s) = %s, want %s", tt.expr, types[0].DatabaseTypeName(), got, tt.want)
			}
		})
	}
}
