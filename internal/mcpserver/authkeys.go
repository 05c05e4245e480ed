package mcpserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
)

const (
	maxDocument = 1 << 20  // a discovery document or key set
	maxToken    = 16 << 10 // a bearer token
	maxVerified = 10000    // verified tokens kept in the cache
)

// Key set fetches: the schedule's bounds, and each fetch's time limit.
const (
	DefaultKeysRefresh = 5 * time.Minute  // --jwks-refresh
	MinKeysRefresh     = 10 * time.Second // the least time between scheduled fetches, whatever max-age says
	fetchTimeout       = 10 * time.Second
)

// keySet is the issuer's public keys, fetched from its jwks_uri at start, then again on a schedule
// and when a token names a key it does not hold.
//
// The schedule fetches every refresh, sooner when the last answer's Cache-Control max-age says so
// (never sooner than MinKeysRefresh), and, after a failure, again after MinKeysRefresh, doubling up
// to refresh: a key the issuer removed stops verifying within refresh of its removal. A failed fetch
// keeps the keys fetched before. An unknown kid fetches at most once per every, so forged kids cannot
// make ctool hammer the issuer.
//
// As coreos/go-oidc's RemoteKeySet does, one fetch runs at a time, in a goroutine of its own under
// the key set's context, and whoever needs its result waits for its end within their own context; the
// keys are read under a lock never held across a fetch. So a slow issuer delays only the tokens that
// name a key ctool does not hold, never those it can verify.
type keySet struct {
	client  *http.Client
	uri     string
	every   time.Duration // the least time between fetches an unknown kid starts
	refresh time.Duration // the longest time between scheduled fetches

	mu   sync.RWMutex
	keys []jose.JSONWebKey
	gen  atomic.Uint64 // counts the fetches that removed or replaced a key

	fmu      sync.Mutex
	inflight chan struct{} // closed when the fetch under way ends; nil when none is
	tried    time.Time     // when the last fetch started
	due      time.Time     // when the schedule fetches next
	failures int           // scheduled or not, fetches failed in a row

	moved  chan struct{} // tells run that due has changed
	log    atomic.Pointer[eventLog]
	ctx    context.Context
	stop   context.CancelFunc
	ran    chan struct{} // closed when run returns
	closed sync.Once
}

// fetch replaces the keys with the issuer's current set, and returns the answer's max-age. Keys ctool
// cannot use (symmetric ones, encryption keys, unknown types) are skipped, one by one.
func (ks *keySet) fetch(ctx context.Context) (time.Duration, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	header, err := getJSON(ctx, ks.client, ks.uri, &doc)
	if err != nil {
		return -1, err
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || k.Use == "enc" {
			continue
		}
		if !k.IsPublic() {
			k = k.Public() // a private key published by mistake: only its public half is used
		}
		switch k.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, k)
		}
	}
	ks.mu.Lock()
	if !covers(keys, ks.keys) {
		ks.gen.Add(1) // the tokens verified with a key now gone are verified again
	}
	ks.keys = keys
	ks.mu.Unlock()
	return maxAge(header), nil
}

// covers reports whether every key of old is in keys, the same key under the same kid and algorithm.
func covers(keys, old []jose.JSONWebKey) bool {
	id := func(k jose.JSONWebKey) string {
		t, _ := k.Thumbprint(crypto.SHA256)
		return k.KeyID + "\x00" + k.Algorithm + "\x00" + k.Use + "\x00" + string(t)
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[id(k)] = true
	}
	for _, k := range old {
		if !have[id(k)] {
			return false
		}
	}
	return true
}

// schedule sets when the schedule fetches next, after a fetch that ended with err and maxAge. fmu is
// held, or the schedule has not started.
func (ks *keySet) schedule(maxAge time.Duration, err error) {
	next := ks.refresh
	if err != nil {
		ks.failures++
		next = MinKeysRefresh << min(ks.failures-1, 16)
	} else {
		ks.failures = 0
		if maxAge >= 0 {
			next = min(next, maxAge)
		}
	}
	ks.due = time.Now().Add(min(max(next, MinKeysRefresh), ks.refresh))
}

// start begins a fetch unless one is under way, and returns the channel closed at its end. fmu is held.
func (ks *keySet) start() chan struct{} {
	if ks.inflight != nil {
		return ks.inflight
	}
	done := make(chan struct{})
	ks.inflight, ks.tried = done, time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(ks.ctx, fetchTimeout)
		maxAge, err := ks.fetch(ctx)
		cancel()
		if err != nil && ks.ctx.Err() == nil {
			ks.log.Load().keysFailed(err)
		}
		ks.fmu.Lock()
		ks.schedule(maxAge, err)
		ks.inflight = nil
		ks.fmu.Unlock()
		select {
		case ks.moved <- struct{}{}:
		default:
		}
		close(done)
	}()
	return done
}

// run is the schedule: it fetches when due comes, until close.
func (ks *keySet) run() {
	defer close(ks.ran)
	timer := time.NewTimer(ks.untilDue())
	defer timer.Stop()
	for {
		select {
		case <-ks.ctx.Done():
			return
		case <-ks.moved: // a fetch for an unknown kid moved due
		case <-timer.C:
			if ks.untilDue() <= 0 {
				ks.fmu.Lock()
				done := ks.start()
				ks.fmu.Unlock()
				select {
				case <-done:
				case <-ks.ctx.Done():
					return
				}
			}
		}
		timer.Reset(ks.untilDue())
	}
}

func (ks *keySet) untilDue() time.Duration {
	ks.fmu.Lock()
	defer ks.fmu.Unlock()
	return time.Until(ks.due)
}

// close stops the schedule and waits for a fetch under way to end.
func (ks *keySet) close() {
	ks.closed.Do(func() {
		ks.stop()
		<-ks.ran
		ks.fmu.Lock()
		done := ks.inflight
		ks.fmu.Unlock()
		if done != nil {
			<-done
		}
	})
}

// generation changes when a fetch removes or replaces a key.
func (ks *keySet) generation() uint64 { return ks.gen.Load() }

// find returns the key a token's header names. For a kid it does not hold it fetches the set again,
// or waits for the fetch under way, unless the last began less than every ago; ctx bounds the wait.
func (ks *keySet) find(ctx context.Context, kid, alg string) (crypto.PublicKey, bool) {
	if k, ok := ks.lookup(kid, alg); ok {
		return k, true
	}
	ks.fmu.Lock()
	done := ks.inflight
	if done == nil && time.Since(ks.tried) >= ks.every {
		done = ks.start()
	}
	ks.fmu.Unlock()
	if done == nil {
		return nil, false
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, false
	}
	return ks.lookup(kid, alg)
}

// lookup picks the key with the kid (or the only key, for a token without one) whose declared
// algorithm, if any, is the token's.
func (ks *keySet) lookup(kid, alg string) (crypto.PublicKey, bool) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	var found []jose.JSONWebKey
	for _, k := range ks.keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == alg) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return nil, false
	}
	return found[0].Key, true
}
