package mcpserver

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// fairShare keeps one caller from taking the server from everyone else: per key (a token's subject)
// at most max requests in flight, and a token bucket.
type fairShare struct {
	max   int
	rate  rate.Limit
	burst int

	mu    sync.Mutex
	users map[string]*share
}

type share struct {
	bucket   *rate.Limiter
	inFlight int
}

// maxShares bounds the callers remembered; idle ones with a full bucket are forgotten first.
const maxShares = 10000

func newFairShare(max int, r rate.Limit, burst int) *fairShare {
	return &fairShare{max: max, rate: r, burst: burst, users: map[string]*share{}}
}

// enter admits one request of key at now, returning the function that ends it; or, past either
// limit, nil and how long to wait.
func (f *fairShare) enter(key string, now time.Time) (release func(), wait time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.users[key]
	if s == nil {
		if len(f.users) >= maxShares {
			f.forget(now)
		}
		s = &share{bucket: rate.NewLimiter(f.rate, f.burst)}
		f.users[key] = s
	}
	if s.inFlight >= f.max {
		return nil, time.Second
	}
	r := s.bucket.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return nil, d
	}
	s.inFlight++
	return func() {
		f.mu.Lock()
		s.inFlight--
		f.mu.Unlock()
	}, 0
}

// forget drops the callers with nothing in flight and a full bucket: they start afresh anyway.
func (f *fairShare) forget(now time.Time) {
	for k, s := range f.users {
		if s.inFlight == 0 && s.bucket.TokensAt(now) >= float64(f.burst) {
			delete(f.users, k)
		}
	}
}
