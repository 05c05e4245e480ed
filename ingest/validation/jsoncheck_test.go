package validation

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/schema"
)

// TestJSONCellRules checks what validation says of JSON cells DuckDB would read otherwise than
// encoding/json and the JSON Schema do (jsoncheck.go), line for line as the text report prints it.
func TestJSONCellRules(t *testing.T) {
	v, err := newValidator(0)
	if err != nil {
		t.Fatal(err)
	}
	v.strict = true // the rules' messages; TestUntypedCellsAreWarnings has their severity
	col := func(d *schema.Dataset, name string) schema.Column {
		c, ok := d.Column(name)
		if !ok {
			t.Fatalf("no column %s.%s", d.Name, name)
		}
		return c
	}
	parking, rooms, kids := col(schema.Stores, "parking"), col(schema.Stores, "private_room"), col(schema.Stores, "kids_info")
	hours, closures, audience := col(schema.Stores, "opening_hours"), col(schema.Stores, "irregular_closures"), col(schema.Stores, "target_audience")
	const surrogateHint = "; write the character as UTF-8 or as a surrogate pair"
	tests := []struct {
		name   string
		column schema.Column
		cell   string
		want   []string // the problems as text lines, none for a cell that passes
	}{
		// Duplicate keys, at any depth, however the key is written.
		{"duplicate key", parking, `{"available": false, "available": true}`,
			[]string{`f:2: parking: duplicate_key: $: duplicate key "available" (at byte 22, first at byte 2); keep one`}},
		{"duplicate key, the first value wrong", parking, `{"available": "x", "available": true}`,
			[]string{`f:2: parking: duplicate_key: $: duplicate key "available" (at byte 20, first at byte 2); keep one`}},
		{"duplicate key, the same value", rooms, `{"available": true, "available": true}`,
			[]string{`f:2: private_room: duplicate_key: $: duplicate key "available" (at byte 21, first at byte 2); keep one`}},
		{"duplicate key nested", hours, `{"monday": [{"open": "10:00", "close": "20:00"}, {"open": "21:00", "close": "23:00", "open": "22:00"}]}`,
			[]string{`f:2: opening_hours: duplicate_key: $.monday.1: duplicate key "open" (at byte 86, first at byte 51); keep one`}},
		{"duplicate key escaped", kids, `{"highchair": true, "\u0068ighchair": false}`,
			[]string{`f:2: kids_info: duplicate_key: $: duplicate key "highchair" (at byte 21, first at byte 2); keep one`}},
		{"duplicate empty key", kids, `{"": 1, "": 2}`,
			[]string{`f:2: kids_info: duplicate_key: $: duplicate key "" (at byte 9, first at byte 2); keep one`}},
		{"every duplicate", kids, `{"kids_menu": true, "kids_menu": true, "kids_menu": false}`,
			[]string{
				`f:2: kids_info: duplicate_key: $: duplicate key "kids_menu" (at byte 21, first at byte 2); keep one`,
				`f:2: kids_info: duplicate_key: $: duplicate key "kids_menu" (at byte 40, first at byte 2); keep one`,
			}},
		{"duplicate key in a large object", kids, `{"k0": 0, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8, "k9": 9, "k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": 16, "k17": 17, "k3": 3}`,
			[]string{`f:2: kids_info: duplicate_key: $: duplicate key "k3" (at byte 180, first at byte 29); keep one`}},
		{"at most 10 problems a cell", kids, `{"a": 1` + strings.Repeat(`, "a": 1`, 12) + `}`, func() []string {
			var lines []string
			for i := range 10 {
				lines = append(lines, fmt.Sprintf(`f:2: kids_info: duplicate_key: $: duplicate key "a" (at byte %d, first at byte 2); keep one`, 10+8*i))
			}
			return lines
		}()},
		{"the same key in two objects", closures, `[{"type": "holiday", "date": "2025-10-04"}, {"type": "holiday", "date": "2025-10-05"}]`, nil},
		{"a key named like its value's path", hours, `{"monday": [], "tuesday": [{"open": "10:00", "close": "20:00"}]}`, nil},

		// Escaped surrogates without their pair, in values and keys.
		{"lone high surrogate", audience, `["\ud800"]`,
			[]string{`f:2: target_audience: json: $.0: lone surrogate \ud800 (at byte 2)` + surrogateHint}},
		{"lone low surrogate", audience, `["家族", "a\udc00b"]`,
			[]string{`f:2: target_audience: json: $.1: lone surrogate \udc00 (at byte 12)` + surrogateHint}},
		{"high surrogate, then no low one", audience, `["\uD800\u0041"]`,
			[]string{`f:2: target_audience: json: $.0: lone surrogate \uD800 (at byte 2)` + surrogateHint}},
		{"high surrogate at the end", audience, `["x\ud83d"]`,
			[]string{`f:2: target_audience: json: $.0: lone surrogate \ud83d (at byte 2)` + surrogateHint}},
		{"two high surrogates", audience, `["\ud83d\ud83d\ude00"]`,
			[]string{`f:2: target_audience: json: $.0: lone surrogate \ud83d (at byte 2)` + surrogateHint}},
		{"lone surrogate in a key", kids, `{"\ud800": true}`,
			[]string{`f:2: kids_info: json: $: lone surrogate \ud800 (at byte 2)` + surrogateHint}},
		{"surrogate pair", audience, `["\ud83d\ude00", "\uD83D\uDE00"]`, nil},
		{"escaped backslash before u", audience, `["\\ud800"]`, nil},
		{"escaped quote before u", audience, `["\"\ud800"]`,
			[]string{`f:2: target_audience: json: $.0: lone surrogate \ud800 (at byte 2)` + surrogateHint}},

		// Numbers: the column's range is its JSON Schema's; beyond a double, nothing reads them as written.
		{"capacity of 20 digits", parking, `{"available": true, "capacity": 99999999999999999999}`,
			[]string{`f:2: parking: schema: $.capacity: Must be less than or equal to 2147483647 (JSON Schema parking.json)`}},
		{"capacity past 32 bits", rooms, `{"available": true, "capacity": 2147483648}`,
			[]string{`f:2: private_room: schema: $.capacity: Must be less than or equal to 2147483647 (JSON Schema private_room.json)`}},
		{"capacity at 32 bits", rooms, `{"available": true, "capacity": 2147483647}`, nil},
		{"capacity written with an exponent", rooms, `{"available": true, "capacity": 2.0e1}`, nil},
		{"capacity beyond a double", parking, `{"available": true, "capacity": 1e400}`,
			[]string{`f:2: parking: json: $.capacity: the number "1e400" is beyond the range of a double (at byte 33)`}},
		{"number that reads as 0", audience, `[1e-400]`,
			[]string{`f:2: target_audience: json: $.0: the number "1e-400" is too small for a double and would read as 0 (at byte 2)`}},
		{"zero with a large exponent", rooms, `{"available": true, "capacity": 0e999}`, nil},
		{"number of 65 characters", audience, "[" + strings.Repeat("1", 65) + "]",
			[]string{`f:2: target_audience: json: $.0: the number "` + strings.Repeat("1", 60) + `"… is longer than 64 characters (at byte 2)`}},

		// Not JSON: encoding/json's message, as before the token pass.
		{"trailing comma", audience, `["家族",]`,
			[]string{`f:2: target_audience: json: not valid JSON: invalid character ']' looking for beginning of value (at byte 11)`}},
		{"two values", parking, `{"available": true} {}`,
			[]string{`f:2: parking: json: not valid JSON: invalid character '{' after top-level value (at byte 21)`}},
		{"nested too deep", audience, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
			[]string{`f:2: target_audience: json: not valid JSON: invalid character '[' exceeded max depth (at byte 10001)`}},
		{"nested as deep as allowed", audience, strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
			[]string{`f:2: target_audience: schema: $.0: Invalid type. Expected: string, given: array (JSON Schema target_audience.json)`}},
		{"only white space", audience, " \t",
			[]string{`f:2: target_audience: json: not valid JSON: unexpected end of JSON input (at byte 2)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v.report = &Report{}
			v.cell("f", 2, tt.column, tt.cell)
			var got []string
			for _, p := range v.report.Problems {
				got = append(got, p.String())
			}
			if g, w := strings.Join(got, "\n"), strings.Join(tt.want, "\n"); g != w {
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// BenchmarkCheckJSON checks every JSON cell of the sample stores and events files once each, without
// the verdict cache: the token pass and the JSON Schema together.
func BenchmarkCheckJSON(b *testing.B) {
	v, err := newValidator(0)
	if err != nil {
		b.Fatal(err)
	}
	type cell struct{ schema, text string }
	var cells []cell
	for _, d := range []*schema.Dataset{schema.Stores, schema.Events} {
		f, err := os.Open(filepath.Join("..", "..", "input", d.SourceFile))
		if err != nil {
			b.Fatal(err)
		}
		records, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range records[1:] {
			for i, name := range records[0] {
				if c, _ := d.Column(name); c.Kind == schema.JSON && r[i] != "" {
					cells = append(cells, cell{c.SchemaFile, r[i]})
				}
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, c := range cells {
			_ = v.checkJSON(c.schema, c.text)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cells)), "ns/cell")
}
