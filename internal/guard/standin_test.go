package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
)

// standIn is one connection to a fresh stand-in database (guardtest.OpenStandIn), as the guard's
// readers get it.
func standIn(tb testing.TB) *Conn {
	tb.Helper()
	return NewConn(guardtest.OpenStandIn(tb), nil)
}

// queryLog reads what DuckDB's own query log recorded: every statement that reached the engine, by
// its text, whatever path sent it.
type queryLog struct{ conn *Conn }

// startQueryLog turns DuckDB's query log on for conn's database, emptied.
func startQueryLog(tb testing.TB, conn *Conn) queryLog {
	tb.Helper()
	for _, s := range []string{"CALL enable_logging('QueryLog')", "CALL truncate_duckdb_logs()"} {
		if _, err := conn.raw.ExecContext(context.Background(), s); err != nil {
			tb.Fatal(err)
		}
	}
	return queryLog{conn}
}

// statements returns the statements logged since the start or the last call, and empties the log.
func (l queryLog) statements(tb testing.TB) []string {
	tb.Helper()
	rows, err := l.conn.raw.QueryContext(context.Background(), "SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
	if _, err := l.conn.raw.ExecContext(context.Background(), "CALL truncate_duckdb_logs()"); err != nil {
		tb.Fatal(err)
	}
	// The log's own reading is logged too: drop it.
	var kept []string
	for _, s := range out {
		if !strings.Contains(s, "duckdb_logs") {
			kept = append(kept, s)
		}
	}
	return kept
}
