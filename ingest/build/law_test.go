package build_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/ingest/validation"
)

// Validation is the law the build obeys: for a JSON cell DuckDB could read otherwise than validation
// does, ingest either refuses it as invalid data, with the rule word the report gives, builds it with
// that rule's warning and the cell's typed values unknown (NULL), or builds it and the typed relations
// hold exactly the value validation checked. With --strict every warning refuses the build. It never
// fails after validation passed, and never builds a value validation did not see.
func TestIngestObeysValidate(t *testing.T) {
	const (
		rooms    = `"{""available"": false, ""capacity"": null, ""charge"": null}"` // STR-0001's private_room, the first of its kind
		audience = `"[""ファミリー"", ""地域住民"", ""料理好き"", ""観光客""]"`                     // STR-0001's target_audience
		capacity = `SELECT private_room_capacity FROM stores_typed WHERE store_id = 'STR-0001'`
		first    = `SELECT target_audience[1] FROM stores_typed WHERE store_id = 'STR-0001'`
		avail    = `SELECT private_room_available FROM stores_typed WHERE store_id = 'STR-0001'`
	)
	tests := []struct {
		name      string
		old, cell string // the CSV cell replaced, and the JSON text put in its place
		rule      string // the first problem's rule word; "" when the data is valid
		warning   bool   // the problem is a warning: built, the cell's typed values unknown, unless strict
		query     string // for valid data, or a warning's: what the build must answer
		want      string
	}{
		{"duplicate key", rooms, `{"available": false, "available": true}`, validation.RuleDuplicateKey, false, "", ""},
		{"duplicate key, the first value wrong", rooms, `{"available": "x", "available": true}`, validation.RuleDuplicateKey, false, "", ""},
		{"capacity of 20 digits", rooms, `{"available": true, "capacity": 99999999999999999999}`, validation.RuleSchema, true, avail, "<nil>"},
		{"capacity past 32 bits", rooms, `{"available": true, "capacity": 2147483648}`, validation.RuleSchema, true, capacity, "<nil>"},
		{"capacity beyond a double", rooms, `{"available": true, "capacity": 1e400}`, validation.RuleJSON, true, avail, "<nil>"},
		{"capacity that reads as 0", rooms, `{"available": true, "capacity": 1e-400}`, validation.RuleJSON, true, capacity, "<nil>"},
		{"lone surrogate", audience, `["\ud800", "家族"]`, validation.RuleJSON, true, first, "<nil>"},
		{"lone low surrogate", audience, `["\udc00"]`, validation.RuleJSON, true, first, "<nil>"},
		{"lone surrogate in a key", rooms, `{"available": true, "\ud800": 1}`, validation.RuleJSON, true, avail, "<nil>"},

		{"one key once", rooms, `{"available": true}`, "", false, avail, "true"},
		{"capacity at 32 bits", rooms, `{"available": true, "capacity": 2147483647}`, "", false, capacity, "2147483647"},
		{"capacity with an exponent", rooms, `{"available": true, "capacity": 2.0e1}`, "", false, capacity, "20"},
		{"capacity of zero with a large exponent", rooms, `{"available": true, "capacity": 0e999}`, "", false, capacity, "0"},
		{"capacity of minus zero", rooms, `{"available": true, "capacity": -0}`, "", false, capacity, "0"},
		{"surrogate pair", audience, `["\ud83d\ude00"]`, "", false, first, "😀"},
		{"escaped backslash before u", audience, `["\\ud800"]`, "", false, first, `\ud800`},
		{"escaped NUL", audience, `["a\u0000b"]`, "", false, first, "a\x00b"},
	}
	for _, strict := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, strict), func(t *testing.T) {
				cell := `"` + strings.ReplaceAll(tt.cell, `"`, `""`) + `"`
				input := copyInput(t, ingesttest.SampleInput(t), func(name, text string) string {
					if !strings.HasPrefix(name, "filtered_store_data") {
						return text
					}
					if !strings.Contains(text, tt.old) {
						t.Fatalf("%s holds no %s", name, tt.old)
					}
					return strings.Replace(text, tt.old, cell, 1)
				})
				db := filepath.Join(t.TempDir(), "ctool.duckdb")
				sum, err := build.Run(context.Background(), input, db, build.Options{Strict: strict})
				refused := tt.rule != "" && (!tt.warning || strict)
				var invalid *validation.InvalidError
				switch {
				case errors.As(err, &invalid):
					if got := invalid.Report.Problems[0]; !refused || got.Rule != tt.rule || invalid.Report.Count != 1 {
						t.Fatalf("refused as %d problems, the first %v; want rule %q", invalid.Report.Count, got, tt.rule)
					}
				case err != nil:
					t.Fatalf("validation passed what the build refused: %v", err)
				case refused:
					t.Fatalf("built, want a %s problem", tt.rule)
				default:
					if tt.warning && (len(sum.Warnings) != 1 || sum.Warnings[0].Rule != tt.rule) {
						t.Errorf("warnings %v, want one %s", sum.Warnings, tt.rule)
					}
					if got := fmt.Sprint(queryValue(t, db, tt.query)); got != tt.want {
						t.Errorf("%s = %q, want %q", tt.query, got, tt.want)
					}
				}
			})
		}
	}
}

// queryValue is the one value a query answers on the main file of the build at path.
func queryValue(t *testing.T, path, query string) any {
	t.Helper()
	var v any
	if err := openMain(t, path).QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v
}
