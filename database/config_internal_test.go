package database

import (
	"strings"
	"testing"
)

// TestLateMaterializationBySize: off below smallBuild, DuckDB's default at and above it.
func TestLateMaterializationBySize(t *testing.T) {
	for _, tc := range []struct {
		size int64
		off  bool
	}{{0, true}, {smallBuild - 1, true}, {smallBuild, false}, {1 << 30, false}} {
		if got := strings.Contains(options{}.dsn(tc.size), "late_materialization_max_rows=0"); got != tc.off {
			t.Errorf("dsn(%d) turns late materialization off: %v, want %v", tc.size, got, tc.off)
		}
	}
}
