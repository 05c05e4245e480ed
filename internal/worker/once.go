package worker

import (
	"context"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// queryFresh is Query on a worker started for it (ctool query's one call): the query is sent at once
// and waits in the pipe while the worker opens the database, so the call waits for the greeting and
// the answer together rather than one after the other.
func (p *Pool) queryFresh(ctx context.Context, d *schema.Dataset, sqlText string) (*query.Result, error) {
	if err := p.enter(ctx); err != nil {
		return nil, err
	}
	w, err := p.launch()
	if err != nil {
		p.leave()
		return nil, err
	}
	req := w.request(ctx, d, sqlText)
	// A query longer than the pipe holds is taken in only once the worker has greeted: the write must
	// not keep this call from hearing that the worker could not open the database.
	sent := make(chan error, 1)
	go func() { sent <- w.conn.sendJSON(typeQuery, req) }()
	if _, err := p.greeted(ctx, w); err != nil {
		p.leave()
		return nil, err
	}
	if err := <-sent; err != nil {
		err := p.lost(w)
		p.leave()
		return nil, err
	}
	return p.await(ctx, w)
}
