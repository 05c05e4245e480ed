package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// These tests run in testing/synctest bubbles: time is virtual, and moves when every goroutine of the
// bubble waits, so the schedule's minutes pass at once. The issuer is reached without the network
// (testIssuer.inMemory).

// newBubbleAuth is newAuth against iss inside the current bubble, closed at the test's end.
func newBubbleAuth(t *testing.T, iss *testIssuer, c AuthConfig) *authorizer {
	t.Helper()
	c.Issuer, c.Resource, c.client = iss.URL, testResource, iss.inMemory()
	a, err := newAuth(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a
}

// verifies reports whether a accepts token now, and the reason when it does not.
func verifies(a *authorizer, token string) (bool, reason) {
	ti, why := a.verifier.verify(context.Background(), token)
	return ti != nil, why
}

// A key the issuer removes stops verifying within the refresh interval, sooner when the key set's
// Cache-Control max-age says so, never sooner than MinKeysRefresh; before the fetch, a token it
// signed (verified and cached at the start) is still accepted.
func TestKeySetRemovedKeyStopsWorking(t *testing.T) {
	for _, tc := range []struct {
		name         string
		refresh      time.Duration // KeysRefresh; 0 is the default
		cacheControl string
		fetchedAfter time.Duration // when the schedule fetches after the start
	}{
		{"the default interval", 0, "", DefaultKeysRefresh},
		{"--jwks-refresh 1m", time.Minute, "", time.Minute},
		{"--jwks-refresh at its least", MinKeysRefresh, "", MinKeysRefresh},
		{"below the least", time.Second, "", MinKeysRefresh},
		{"max-age shorter", 0, "public, max-age=60", time.Minute},
		{"max-age quoted, upper case", 0, `Max-Age="90"`, 90 * time.Second},
		{"max-age longer than the interval", time.Minute, "max-age=3600", time.Minute},
		{"max-age below the least", 0, "max-age=1", MinKeysRefresh},
		{"max-age 0", 0, "max-age=0", MinKeysRefresh},
		{"no-store", 0, "no-store", MinKeysRefresh},
		{"no-cache with max-age", 0, "no-cache, max-age=600", MinKeysRefresh},
		{"max-age not a number", 0, "max-age=soon", DefaultKeysRefresh},
		{"max-age negative", 0, "max-age=-5", DefaultKeysRefresh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iss := newTestIssuer(t, false)
			iss.set(func() { iss.cacheControl = tc.cacheControl })
			synctest.Test(t, func(t *testing.T) {
				a := newBubbleAuth(t, iss, AuthConfig{KeysRefresh: tc.refresh})
				token := iss.mint(t, "ec1", iss.claims("u"))
				other := iss.mint(t, "rsa1", iss.claims("v")) // a key that stays
				if ok, reason := verifies(a, token); !ok {
					t.Fatalf("at start: refused (%s)", reason)
				}
				iss.remove("ec1")
				time.Sleep(tc.fetchedAfter - time.Second)
				synctest.Wait()
				if ok, _ := verifies(a, token); !ok || iss.jwksHits.Load() != 1 {
					t.Errorf("%v after the start: accepted %v, %d key set fetches; want true, 1", tc.fetchedAfter-time.Second, ok, iss.jwksHits.Load())
				}
				time.Sleep(time.Second)
				synctest.Wait()
				if ok, reason := verifies(a, token); ok || reason != reasonSignature {
					t.Errorf("%v after the start: accepted %v (%s), want refused as signature", tc.fetchedAfter, ok, reason)
				}
				if ok, reason := verifies(a, other); !ok {
					t.Errorf("a token of a key that stays: refused (%s)", reason)
				}
				if n := iss.jwksHits.Load(); n != 2 {
					t.Errorf("%d key set fetches, want 2 (the start, the schedule)", n)
				}
			})
		})
	}
}

// A fetch that fails keeps the keys, is logged, and is tried again after MinKeysRefresh, then twice,
// four times as long..., up to the interval; once the issuer answers again, a removed key is gone.
func TestKeySetFailedFetchKeepsKeys(t *testing.T) {
	iss := newTestIssuer(t, false)
	synctest.Test(t, func(t *testing.T) {
		a := newBubbleAuth(t, iss, AuthConfig{KeysRefresh: 2 * time.Minute})
		log := &syncBuffer{}
		a.observe(newEventLog(log), nil)
		token := iss.mint(t, "ec1", iss.claims("u"))
		iss.set(func() { iss.jwksStatus = http.StatusServiceUnavailable })
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if ok, reason := verifies(a, token); !ok {
			t.Errorf("after a failed fetch: refused (%s)", reason)
		}
		if !strings.Contains(log.String(), `"keys":"fetch_failed","error":"`+iss.URL+`/jwks: 503 Service Unavailable"`) {
			t.Errorf("log: %s", log)
		}
		// Tries again after 10 s, 20 s, 40 s, 80 s, then every 2 minutes.
		for i, wait := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 2 * time.Minute, 2 * time.Minute} {
			time.Sleep(wait - time.Second)
			synctest.Wait()
			if n := iss.jwksHits.Load(); n != int32(i+2) {
				t.Fatalf("retry %d: %d fetches %v after the last, want %d", i+1, n, wait-time.Second, i+2)
			}
			time.Sleep(time.Second)
			synctest.Wait()
			if n := iss.jwksHits.Load(); n != int32(i+3) {
				t.Fatalf("retry %d: %d fetches %v after the last, want %d", i+1, n, wait, i+3)
			}
		}
		iss.set(func() { iss.jwksStatus = 0 })
		iss.remove("ec1")
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if ok, _ := verifies(a, token); ok {
			t.Error("once the issuer answers again, a removed key still verifies")
		}
	})
}

// A token naming a key ctool does not hold fetches the key set again, at most once per refetchEvery
// however many forged kids arrive; a key the issuer added (a rotation) is found that way, and the
// fetch restarts the schedule.
func TestKeySetUnknownKidRateLimited(t *testing.T) {
	iss := newTestIssuer(t, false)
	synctest.Test(t, func(t *testing.T) {
		a := newBubbleAuth(t, iss, AuthConfig{refetchEvery: 10 * time.Second, KeysRefresh: time.Hour})
		forger := mustRSA(t)
		forge := func(round int) {
			for i := range 20 {
				if ok, reason := verifies(a, sign(t, jose.RS256, forger, fmt.Sprint("forged", round, i), iss.claims("u"))); ok || reason != reasonSignature {
					t.Fatalf("a forged kid: accepted %v (%s)", ok, reason)
				}
			}
		}
		forge(0)
		if n := iss.jwksHits.Load(); n != 1 {
			t.Errorf("%d key set fetches after 20 forged kids at start, want 1", n)
		}
		time.Sleep(10 * time.Second)
		forge(1)
		if n := iss.jwksHits.Load(); n != 2 {
			t.Errorf("%d key set fetches after 20 more, 10 s later, want 2", n)
		}
		iss.add("rsa2", jose.RS256, forger) // a rotation
		rotated := iss.mint(t, "rsa2", iss.claims("u"))
		if ok, _ := verifies(a, rotated); ok {
			t.Error("a rotated key was found within refetchEvery of the last fetch")
		}
		time.Sleep(10 * time.Second)
		if ok, reason := verifies(a, rotated); !ok {
			t.Errorf("a rotated key, 10 s later: refused (%s)", reason)
		}
		if n := iss.jwksHits.Load(); n != 3 {
			t.Errorf("%d key set fetches, want 3", n)
		}
		// The schedule counts from the last fetch: nothing more within the hour.
		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		if n := iss.jwksHits.Load(); n != 3 {
			t.Errorf("%d key set fetches within the hour after the last, want 3", n)
		}
	})
}

// A slow issuer delays no token ctool can verify: while a fetch hangs, a token of a key it holds is
// accepted at once (no time passes), and one naming an unknown kid waits for the fetch only as long
// as its own request lasts. The hung fetch gives up after its time limit, keeping the keys.
func TestKeySetSlowIssuer(t *testing.T) {
	iss := newTestIssuer(t, false)
	synctest.Test(t, func(t *testing.T) {
		a := newBubbleAuth(t, iss, AuthConfig{KeysRefresh: time.Minute})
		log := &syncBuffer{}
		a.observe(newEventLog(log), nil)
		iss.set(func() { iss.jwksHold = make(chan struct{}) })
		time.Sleep(time.Minute)
		synctest.Wait() // the scheduled fetch hangs
		start := time.Now()
		if ok, reason := verifies(a, iss.mint(t, "rsa1", iss.claims("fresh"))); !ok || time.Since(start) != 0 {
			t.Errorf("a known key during a hung fetch: accepted %v (%s) after %v", ok, reason, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if ti, _ := a.verifier.verify(ctx, sign(t, jose.RS256, mustRSA(t), "unknown", iss.claims("u"))); ti != nil || time.Since(start) != 2*time.Second {
			t.Errorf("an unknown kid during a hung fetch: accepted %v after %v, want refused after 2s", ti != nil, time.Since(start))
		}
		time.Sleep(fetchTimeout)
		synctest.Wait()
		if !strings.Contains(log.String(), `"keys":"fetch_failed"`) {
			t.Errorf("the hung fetch was not logged: %s", log)
		}
		if ok, reason := verifies(a, iss.mint(t, "ec1", iss.claims("after"))); !ok {
			t.Errorf("after the hung fetch: refused (%s)", reason)
		}
	})
}

// Through the HTTP handler: a removed key's token is answered 401 once the schedule has fetched.
func TestAuthRemovedKeyOverHTTP(t *testing.T) {
	iss := newTestIssuer(t, false)
	synctest.Test(t, func(t *testing.T) {
		a := newBubbleAuth(t, iss, AuthConfig{KeysRefresh: time.Minute})
		log := &syncBuffer{}
		a.observe(newEventLog(log), nil)
		h := a.protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		token := iss.mint(t, "ed1", iss.claims("u"))
		post := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest("POST", Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Authorization", "Bearer "+token)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		if w := post(); w.Code != 200 {
			t.Fatalf("at start: %d", w.Code)
		}
		iss.remove("ed1")
		time.Sleep(time.Minute)
		synctest.Wait()
		if w := post(); w.Code != 401 || w.Header().Get("WWW-Authenticate") != invalidToken || !strings.Contains(log.String(), `"refusal":"signature"`) {
			t.Errorf("a removed key's token: %d %q, log %s", w.Code, w.Header().Get("WWW-Authenticate"), log)
		}
	})
}
