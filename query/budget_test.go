package query_test

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// Results are measured while their values are converted: past MaxResultBytes the query fails with
// too_large, whether the size is in many rows, one long list or one long string; just under it, the
// whole result comes back.
func TestResultBudget(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		sql  string
		kind fault.Kind // "" for a result
	}{
		{"SELECT repeat('x', 100000) AS s FROM range(10)", ""},
		{"SELECT repeat('x', 110000) AS s FROM range(10)", fault.KindTooLarge},
		{"SELECT range(3000000) AS l", fault.KindTooLarge},
		{"SELECT [repeat('x', 600000), repeat('y', 600000)] AS l", fault.KindTooLarge},
		{"SELECT {'a': repeat('x', 2000000)} AS o", fault.KindTooLarge},
		{"SELECT MAP {'k': range(1000000)} AS m", fault.KindTooLarge},
		{"SELECT range(100000) AS l", ""},
	}
	for _, tt := range tests {
		res, err := e.Query(context.Background(), schema.Stores, tt.sql)
		if got := kindOf(err); got != tt.kind {
			t.Errorf("%s: kind %q (%v), want %q", tt.sql, got, err, tt.kind)
		}
		if tt.kind == "" && err == nil && len(res.Rows) == 0 {
			t.Errorf("%s: no rows", tt.sql)
		}
	}
	if query.MaxResultBytes != 1<<20 {
		t.Fatal("the cases above assume a 1 MiB budget")
	}
}
