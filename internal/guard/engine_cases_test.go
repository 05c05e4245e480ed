package guard

import (
	"context"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/schema"
)

// The corpus's engine cases attack DuckDB, not the guard: it allows them (they are only parsed here,
// never run), and the query workers are what keep them from harming the server.
func TestEngineCasesPassTheGuard(t *testing.T) {
	cases := guardtest.Engine()
	if len(cases) < 10 {
		t.Fatalf("only %d engine cases", len(cases))
	}
	conn := standIn(t)
	for _, tc := range cases {
		if _, err := Check(context.Background(), conn, tc.SQL, ForDataset(schema.Stores), 10); err != nil {
			t.Errorf("%s: %v", tc.Name, err)
		}
	}
}
