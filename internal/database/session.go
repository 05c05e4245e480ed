package database

import (
	"context"
)

// Nothing a call leaves reaches the next. A reader's connections run one SELECT per statement and
// nothing else, refused otherwise by DuckDB's own parse and statement type (selectOnly):
// whatever got past the guard, no statement can create a temporary object or macro, set a variable,
// a search path or a setting, attach a database, switch logging on or prepare a statement, on this
// call's connection or any other. The instance's own in-memory catalog is detached, so not even a
// SELECT could write where another connection reads. What is left to a SELECT is a function's side
// effect (setseed, enable_logging as a table function): the guard's function allow-list holds none,
// and TestFunctionListsCoverDuckDB fails when a DuckDB release adds a function nobody reviewed.
// Undoing those after every call as well was measured, and would add half again to a call's cost:
// bench/results/isolation.md.

// WithStatementLog has DuckDB log every statement that reaches it (its QueryLog), for StatementLog:
// what a test or an audit reads to see exactly which texts ran, whatever path sent them. The log is the
// instance's and grows with every statement: not for a long-lived server.
func WithStatementLog() Option {
	return func(o *options) { o.settings = append(o.settings, "CALL enable_logging('QueryLog')") }
}

// StatementLog returns the text of every statement DuckDB logged since the file was opened
// (WithStatementLog), oldest first, without the statements that read the log or reset a connection.
func (f *File) StatementLog(ctx context.Context) ([]string, error) {
	const read = "SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp"
	rows, err := f.db.QueryContext(ctx, read)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if s != read {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}
