package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/azabudai/ctool/guard"
)

// One call, one connection. Whatever a statement leaves in a DuckDB connection's session (a temporary
// view or macro, a variable, USE, a prepared statement) would be seen by the next call that got the
// same connection, so a connection serves exactly one call and is then discarded. What a session
// cannot hold, the state all connections of the instance share (the attached databases, DuckDB's
// logging), is compared after each call with the state the file was opened in, before the next call
// gets a connection; a file whose state changed hands out no connection again, and Live opens the
// file afresh. The guard lets no statement through that could change either: this holds even if one
// got through. Calls running at the same time share the instance; a query worker of ctool mcp runs one
// at a time.

// instanceStateSQL reads the state every connection of the instance shares.
const instanceStateSQL = "SELECT current_setting('enable_logging') || '|' || (SELECT count(*) FROM duckdb_databases())"

// ErrPoisoned is the error of a file whose shared state a call changed.
var ErrPoisoned = errors.New("the database's shared state changed during a call")

// afterCallTimeout bounds the work done after a call: the check and opening the next connection.
const afterCallTimeout = 10 * time.Second

// WithPrewarm has the file open the next call's connection as soon as a call ends, while the process
// waits for the next call, rather than when it comes. For a process that serves call after call (a
// query worker of ctool mcp).
func WithPrewarm() Option { return func(o *options) { o.prewarm = true } }

// session hands out a file's connections, one per call.
type session struct {
	prewarm  bool
	baseline string    // instanceStateSQL's answer when the file was opened
	monitor  *sql.Conn // a connection that runs nothing but instanceStateSQL

	mu       sync.Mutex
	pending  int           // calls ended whose check is still running
	settled  chan struct{} // closed when pending drops to 0
	ready    *sql.Conn     // prewarm: a connection no call has used
	poisoned error
	closed   bool
	done     sync.WaitGroup // the after-call goroutines
}

// Conn returns a fresh connection for one call; its Close discards it.
func (f *File) Conn(ctx context.Context) (*guard.Conn, error) {
	raw, err := f.calls.take(ctx, f.db)
	if err != nil {
		return nil, err
	}
	return guard.NewConn(raw, f.release), nil
}

// Poisoned is ErrPoisoned, with what changed, once a call has changed the file's shared state. It
// waits for the checks of the calls that have ended.
func (f *File) Poisoned(ctx context.Context) error {
	if err := f.calls.settle(ctx); err != nil {
		return err
	}
	defer f.calls.mu.Unlock()
	return f.calls.poisoned
}

// settle waits for the checks of the calls that ended; it returns with s.mu held.
func (s *session) settle(ctx context.Context) error {
	s.mu.Lock()
	for s.pending > 0 {
		settled := s.settled
		s.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
	}
	return nil
}

// take waits for the checks of the calls that ended, then hands out a connection no call has used.
func (s *session) take(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	if s.poisoned != nil {
		s.mu.Unlock()
		return nil, s.poisoned
	}
	raw := s.ready
	s.ready = nil
	s.mu.Unlock()
	if raw != nil {
		return raw, nil
	}
	return db.Conn(ctx)
}

// release ends a call. A connection on which an agent's query ran is checked and discarded after the
// caller has moved on, and the next call waits for that; one that ran only ctool's own SQL goes back
// to the pool.
func (f *File) release(raw *sql.Conn, agent bool) error {
	if !agent {
		return raw.Close()
	}
	s := &f.calls
	s.mu.Lock()
	if s.pending == 0 {
		s.settled = make(chan struct{})
	}
	s.pending++
	s.done.Add(1)
	s.mu.Unlock()
	go f.afterCall(raw)
	return nil
}

// afterCall compares the instance's shared state with the baseline on the call's connection, discards
// it, and with prewarm opens the next call's.
func (f *File) afterCall(raw *sql.Conn) {
	s := &f.calls
	defer s.done.Done()
	ctx, cancel := context.WithTimeout(context.Background(), afterCallTimeout)
	defer cancel()
	// Returning ErrBadConn from Raw makes database/sql close the connection instead of pooling it.
	raw.Raw(func(any) error { return driver.ErrBadConn })
	raw.Close()
	var state sql.NullString
	s.mu.Lock()
	// Not kept prepared: DuckDB folds current_setting() into a prepared statement once.
	err := s.monitor.QueryRowContext(ctx, instanceStateSQL).Scan(&state)
	s.mu.Unlock()
	if err == nil && state.String != s.baseline {
		err = fmt.Errorf("%w: %q, was %q", ErrPoisoned, state.String, s.baseline)
	}
	var next *sql.Conn
	s.mu.Lock()
	open := err == nil && s.prewarm && !s.closed && s.ready == nil && s.pending == 1
	s.mu.Unlock()
	if open {
		next, _ = f.db.Conn(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.poisoned == nil {
		// An error reading the state is a state that cannot be vouched for.
		s.poisoned = err
		if !errors.Is(err, ErrPoisoned) {
			s.poisoned = fmt.Errorf("%w: %w", ErrPoisoned, err)
		}
	}
	if next != nil {
		if s.ready == nil && !s.closed && s.poisoned == nil {
			s.ready, next = next, nil
		} else {
			defer next.Close()
		}
	}
	if s.pending--; s.pending == 0 {
		close(s.settled)
	}
}

// close waits for the after-call work and closes the ready connection.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.done.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready != nil {
		s.ready.Close()
		s.ready = nil
	}
	if s.monitor != nil {
		s.monitor.Close()
	}
}

// open takes the monitor connection from db and reads the baseline on it.
func (s *session) open(ctx context.Context, db *sql.DB) error {
	var err error
	if s.monitor, err = db.Conn(ctx); err != nil {
		return err
	}
	var state sql.NullString
	if err := s.monitor.QueryRowContext(ctx, instanceStateSQL).Scan(&state); err != nil {
		s.monitor.Close()
		return err
	}
	s.baseline = state.String
	return nil
}

// WithStatementLog has DuckDB log every statement that reaches it (its QueryLog), for StatementLog:
// what a test or an audit reads to see exactly which texts ran, whatever path sent them. The log is the
// instance's and grows with every statement: not for a long-lived server.
func WithStatementLog() Option {
	return func(o *options) { o.settings = append(o.settings, "CALL enable_logging('QueryLog')") }
}

// StatementLog returns the text of every statement DuckDB logged since the file was opened
// (WithStatementLog), oldest first, without the statements that read the log.
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
		if s != read && s != instanceStateSQL {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}
