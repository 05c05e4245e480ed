package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/ingesttest"
)

// Validation is the law the build obeys: for a JSON cell DuckDB could read otherwise than validation
// does, ingest either refuses it as invalid data, with the rule word the report gives, or builds it and
// the typed relations hold exactly the value validation checked. It never fails after validation
// passed, and never builds a value validation did not see.
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
		query     string // for valid data: what the build must answer
		want      string
	}{
		{"duplicate key", rooms, `{"available": false, "available": true}`, ingest.RuleDuplicateKey, "", ""},
		{"duplicate key, the first value wrong", rooms, `{"available": "x", "available": true}`, ingest.RuleDuplicateKey, "", ""},
		{"capacity of 20 digits", rooms, `{"available": true, "capacity": 99999999999999999999}`, ingest.RuleSchema, "", ""},
		{"capacity past 32 bits", rooms, `{"available": true, "capacity": 2147483648}`, ingest.RuleSchema, "", ""},
		{"capacity beyond a double", rooms, `{"available": true, "capacity": 1e400}`, ingest.RuleJSON, "", ""},
		{"capacity that reads as 0", rooms, `{"available": true, "capacity": 1e-400}`, ingest.RuleJSON, "", ""},
		{"lone surrogate", audience, `["\ud800", "家族"]`, ingest.RuleJSON, "", ""},
		{"lone low surrogate", audience, `["\udc00"]`, ingest.RuleJSON, "", ""},
		{"lone surrogate in a key", rooms, `{"available": true, "\ud800": 1}`, ingest.RuleJSON, "", ""},

		{"one key once", rooms, `{"available": true}`, "", avail, "true"},
		{"capacity at 32 bits", rooms, `{"available": true, "capacity": 2147483647}`, "", capacity, "2147483647"},
		{"capacity with an exponent", rooms, `{"available": true, "capacity": 2.0e1}`, "", capacity, "20"},
		{"capacity of zero with a large exponent", rooms, `{"available": true, "capacity": 0e999}`, "", capacity, "0"},
		{"capacity of minus zero", rooms, `{"available": true, "capacity": -0}`, "", capacity, "0"},
		{"surrogate pair", audience, `["\ud83d\ude00"]`, "", first, "😀"},
		{"escaped backslash before u", audience, `["\\ud800"]`, "", first, `\ud800`},
		{"escaped NUL", audience, `["a\u0000b"]`, "", first, "a\x00b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
			_, err := ingest.Ingest(context.Background(), input, db, ingest.Options{})
			var invalid *ingest.InvalidError
			switch {
			case errors.As(err, &invalid):
				if got := invalid.Report.Problems[0]; tt.rule == "" || got.Rule != tt.rule || invalid.Report.Count != 1 {
					t.Fatalf("refused as %d problems, the first %v; want rule %q", invalid.Report.Count, got, tt.rule)
				}
			case err != nil:
				t.Fatalf("validation passed what the build refused: %v", err)
			case tt.rule != "":
				t.Fatalf("built, want a %s problem", tt.rule)
			default:
				if got := fmt.Sprint(queryValue(t, db, tt.query)); got != tt.want {
					t.Errorf("%s = %q, want %q", tt.query, got, tt.want)
				}
			}
		})
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
