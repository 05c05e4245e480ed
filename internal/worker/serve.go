package worker

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// QueryFunc runs one agent query: query.Engine.Query, which a worker runs for each query it reads, or
// Pool.Query, which hands it to a worker (ctool mcp's searches).
type QueryFunc func(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error)

// Serve is a worker's side of the protocol: it greets with hello (the build it opened, after warm
// work is done by the caller), then runs the queries read from in one at a time and answers each on
// out. It returns when in ends (the supervisor went away or closed it), or after answering a query
// whose engine failed in a way that may have poisoned it: the supervisor starts a fresh worker.
func Serve(in io.Reader, out io.Writer, build string, run QueryFunc) error {
	c := newConn(out)
	if err := c.sendJSON(typeHello, map[string]string{"build": build}); err != nil {
		return err
	}
	queries := make(chan *request)
	readErr := make(chan error, 2)
	var mu sync.Mutex
	var current uint64
	var cancel context.CancelFunc = func() {}
	go func() {
		defer close(queries)
		r := bufio.NewReader(in)
		for {
			f, err := readFrame(r)
			if err != nil {
				readErr <- err
				return
			}
			switch f.typ {
			case typeQuery:
				req := &request{}
				if err := json.Unmarshal(f.payload, req); err != nil {
					readErr <- err
					return
				}
				queries <- req
			case typeCancel:
				if len(f.payload) == 8 {
					mu.Lock()
					if binary.BigEndian.Uint64(f.payload) == current {
						cancel()
					}
					mu.Unlock()
				}
			default:
				readErr <- fmt.Errorf("worker: unexpected frame %q", f.typ)
				return
			}
		}
	}()
	// The queries run beside the reader: when the supervisor goes away (in ends), Serve returns at once
	// even if a query is stuck in DuckDB, and the process exits with it.
	served := make(chan error, 1)
	go func() { served <- serveQueries(c, queries, &mu, &current, &cancel, run) }()
	select {
	case err := <-served:
		return err
	case err := <-readErr:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// releaseAfter is how long a worker waits without a query before it hands the memory its last
// queries freed back to the system: an idle process runs no garbage collection of its own, and a pool
// keeps its warm workers idle for hours.
const releaseAfter = time.Second

// serveQueries runs the queries one at a time and answers each; it returns after a query whose engine
// may be poisoned, or when queries is closed.
func serveQueries(c *conn, queries <-chan *request, mu *sync.Mutex, current *uint64, cancel *context.CancelFunc, run QueryFunc) error {
	idle := time.NewTimer(releaseAfter)
	defer idle.Stop()
	for {
		idle.Reset(releaseAfter)
		var req *request
		var ok bool
		select {
		case req, ok = <-queries:
		case <-idle.C:
			debug.FreeOSMemory()
			req, ok = <-queries
		}
		if !ok {
			return nil
		}
		ctx, stop := context.WithCancel(context.Background())
		if dl, ok := req.deadline(); ok {
			ctx, stop = context.WithDeadline(context.Background(), dl)
		}
		mu.Lock()
		*current, *cancel = req.Seq, stop
		mu.Unlock()
		res, err := runOne(ctx, req, run)
		stop()
		if err != nil {
			e := fault.Explain(err)
			f := failure{Seq: req.Seq, Kind: string(e.Kind), Message: e.Message, Hint: e.Hint}
			if poisoned(e.Message) {
				f.Kind, f.Message, f.Hint, f.Exit = string(fault.KindCrashed), engineFailure(e.Message), CrashedHint, true
			}
			if err := c.sendJSON(typeError, f); err != nil || f.Exit {
				return err
			}
			continue
		}
		b, err := EncodeResult(res)
		if err != nil {
			if err := c.sendJSON(typeError, failure{Seq: req.Seq, Kind: string(fault.KindInternal), Message: err.Error()}); err != nil {
				return err
			}
			continue
		}
		if err := c.send(typeResult, append(binary.BigEndian.AppendUint64(nil, req.Seq), b...)); err != nil {
			return err
		}
	}
}

func runOne(ctx context.Context, req *request, run QueryFunc) (*query.Result, error) {
	d, err := schema.ByName(req.Dataset)
	if err != nil {
		return nil, err
	}
	return run(ctx, d, string(req.SQL))
}

// poisoned reports whether DuckDB's message says its instance can no longer be trusted: after a
// FATAL or INTERNAL error it invalidates the database, and every later query on it fails.
func poisoned(msg string) bool {
	return strings.Contains(msg, "FATAL Error") || strings.Contains(msg, "INTERNAL Error") ||
		strings.Contains(msg, "database has been invalidated")
}

// engineFailure is the agent's short message for a poisoned engine: DuckDB's first line, never its
// stack trace (which names the binary's path).
func engineFailure(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	if i := strings.Index(first, "INTERNAL Error"); i >= 0 {
		first = first[i:]
	} else if i := strings.Index(first, "FATAL Error"); i >= 0 {
		first = first[i:]
	}
	if len(first) > 200 {
		first = strings.ToValidUTF8(first[:200], "") + "…"
	}
	return "the query hit an internal error of the query engine (" + first + "); it was not run to the end"
}

// Refuse is a worker's answer when it cannot serve at all (no database, say): the error the
// supervisor passes on to the caller that started it.
func Refuse(out io.Writer, err error) error {
	e := fault.Explain(err)
	return newConn(out).sendJSON(typeError, failure{Kind: string(e.Kind), Message: e.Message, Hint: e.Hint})
}
