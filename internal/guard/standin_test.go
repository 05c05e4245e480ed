package guard

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/guard/guardtest"
)

// testConn is one connection to a fresh stand-in database (guardtest.OpenStandIn), with DuckDB's parse
// as the guard's Parser, as database.Conn offers it.
type testConn struct{ raw *sql.Conn }

func standIn(tb testing.TB) *testConn {
	tb.Helper()
	return &testConn{guardtest.OpenStandIn(tb)}
}

// testSerializeSQL is the parse as database.Conn runs it.
const testSerializeSQL = "SELECT CAST(system.main.json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"

func (c *testConn) SerializeSQL(ctx context.Context, text string) (string, bool, error) {
	var out sql.NullString
	err := c.raw.QueryRowContext(ctx, testSerializeSQL, text).Scan(&out)
	return out.String, !out.Valid, err
}

// queryLog reads what DuckDB's own query log recorded: every statement that reached the engine, by
// its text, whatever path sent it.
type queryLog struct{ conn *testConn }

// startQueryLog turns DuckDB's query log on for conn's database, emptied.
func startQueryLog(tb testing.TB, conn *testConn) queryLog {
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
