package benchkit

import (
	"context"
	"sync"
	"time"
)

// LoadResult is what ClosedLoop measured: the time of every call that succeeded, and the failures.
type LoadResult struct {
	Times    []time.Duration
	Errors   int64
	FirstErr error
}

// ClosedLoop has every client call, one call at a time, until until: client i sends next(c, k) for
// k = i, i+1, ...; a nil from next means it did something untimed itself and goes on.
func ClosedLoop(clients []*HTTP, until time.Time, next func(c *HTTP, k int) map[string]any) LoadResult {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var r LoadResult
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine LoadResult
			for k := i; time.Now().Before(until); k++ {
				p := next(c, k)
				if p == nil {
					continue
				}
				start := time.Now()
				_, err := c.Call(context.Background(), p)
				el := time.Since(start)
				if err != nil {
					mine.Errors++
					if mine.FirstErr == nil {
						mine.FirstErr = err
					}
					continue
				}
				mine.Times = append(mine.Times, el)
			}
			mu.Lock()
			defer mu.Unlock()
			r.Times = append(r.Times, mine.Times...)
			r.Errors += mine.Errors
			if r.FirstErr == nil {
				r.FirstErr = mine.FirstErr
			}
		}()
	}
	wg.Wait()
	return r
}
