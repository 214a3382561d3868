package server_test

import (
	"fmt"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
)

// A tight loop from one key: its burst (100) passes with RateLimit-*
// headers counting down, then 429 with Retry-After; another key is not
// affected; after one emission interval (60 s / 1,200) one more passes.
func TestRateLimitPerKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		var mu sync.Mutex
		now := fixedNow
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		lim := server.NewMemoryLimiter(1200, 100)
		srv := httptest.NewServer(server.NewHandler(e.store, server.WithHasher(cheapHasher), server.WithClock(func() time.Time { return fixedNow }),
			server.WithRateLimiter(lim), server.WithLimiterClock(clock)))
		t.Cleanup(srv.Close)
		get := func(key string) *resp { return doOn(t, srv.URL, "GET", "/public-api/trainers", key, nil, nil) }
		for i := range 100 {
			r := get(e.keyA).expect(t, 200)
			if r.Header.Get("RateLimit-Limit") != "1200" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(99-i) {
				t.Fatalf("request %d: limit %q remaining %q", i, r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
			}
			// The draft's fields: the bucket of 100 refilled over 5 s,
			// and what is left of it, consistent with each other.
			if r.Header.Get("RateLimit-Policy") != `"per-key";q=100;w=5` || r.Header.Get("RateLimit") != fmt.Sprintf(`"per-key";r=%d;t=%d`, 99-i, min(5, (i+1+19)/20)) {
				t.Fatalf("request %d: RateLimit-Policy %q RateLimit %q", i, r.Header.Get("RateLimit-Policy"), r.Header.Get("RateLimit"))
			}
		}
		r := get(e.keyA).expect(t, 429)
		var b api.ErrorBody
		r.JSON(t, &b)
		if r.Header.Get("Retry-After") != "1" || r.Header.Get("RateLimit-Remaining") != "0" || r.Header.Get("RateLimit-Reset") != "5" ||
			r.Header.Get("RateLimit") != `"per-key";r=0;t=5` || b.ErrorCode != api.CodeRateLimited {
			t.Fatalf("429 headers %v body %q", r.Header, r.Body)
		}
		// A write is refused the same way, before it runs.
		e.do("GET", "/public-api/trainers", e.keyA, nil).expect(t, 200) // the env's own server has no limiter
		doOn(t, srv.URL, "POST", "/public-api/trainees", e.keyA, newTraineeBody("Limited"), nil).expect(t, 429)
		if n := e.count(e.keyA); n != 0 {
			t.Fatalf("a refused create created %d", n)
		}
		if r := get(e.keyB).expect(t, 200); r.Header.Get("RateLimit-Remaining") != "99" {
			t.Fatalf("other key: remaining %q", r.Header.Get("RateLimit-Remaining"))
		}
		mu.Lock()
		now = now.Add(50 * time.Millisecond)
		mu.Unlock()
		get(e.keyA).expect(t, 200)
		get(e.keyA).expect(t, 429)
		// SetLimit applies at once: a bigger burst lets the loop go on.
		lim.SetLimit(1200, 200)
		if r := get(e.keyA).expect(t, 200); r.Header.Get("RateLimit-Remaining") != "99" {
			t.Fatalf("after SetLimit: remaining %q", r.Header.Get("RateLimit-Remaining"))
		}
	})
}
