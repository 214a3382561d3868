package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// redisURL is TRAINEED_TEST_REDIS; the test is skipped without it unless
// TRAINEED_REQUIRE_REDIS=1.
func redisURL(t *testing.T) string {
	u := os.Getenv("TRAINEED_TEST_REDIS")
	if u == "" {
		if os.Getenv("TRAINEED_REQUIRE_REDIS") == "1" {
			t.Fatal("TRAINEED_TEST_REDIS is not set and TRAINEED_REQUIRE_REDIS=1")
		}
		t.Skip("TRAINEED_TEST_REDIS not set")
	}
	return u
}

// limitedPair is two instances over one store, each with its own limiter,
// and a key of a company.
func limitedPair(t *testing.T, mk func() server.RateLimiter) (a, b *httptest.Server, key, other string) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	co, err := s.CreateCompany(ctx, "Limited", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustTrainer(t, s, co.ID, "Coach", "coach@limited.example")
	key, other = api.GenerateKey(), api.GenerateKey()
	for _, k := range []string{key, other} {
		if _, err := s.CreateKey(ctx, co.ID, "k", api.HashKey(k), api.KeyDisplayPrefix(k)); err != nil {
			t.Fatal(err)
		}
	}
	a = httptest.NewServer(server.NewHandler(s, server.WithRateLimiter(mk())))
	b = httptest.NewServer(server.NewHandler(s, server.WithRateLimiter(mk())))
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	return a, b, key, other
}

func getWithKey(t *testing.T, base, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/public-api/trainers", nil)
	req.Header.Set(api.HeaderAPIKey, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// Two instances sharing Redis share each key's limit: a tight loop
// alternating between them gets 429s once the burst of both together is
// spent; another key is not affected.
func TestRateLimitSharedByRedis(t *testing.T) {
	u := redisURL(t)
	prefix := fmt.Sprintf("traineed-test:%d:", time.Now().UnixNano())
	a, b, key, other := limitedPair(t, func() server.RateLimiter {
		l, rdb, err := newRedisLimiter(u, prefix, 60, 10, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rdb.Close() })
		return l
	})
	before := server.LimiterFailOpenTotal()
	ok := 0
	for i := range 30 {
		base := a.URL
		if i%2 == 1 {
			base = b.URL
		}
		res := getWithKey(t, base, key)
		switch res.StatusCode {
		case 200:
			ok++
		case 429:
			if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 || res.Header.Get("RateLimit-Limit") != "60" || res.Header.Get("RateLimit-Remaining") != "0" {
				t.Fatalf("429 headers %v", res.Header)
			}
		default:
			t.Fatalf("status %d", res.StatusCode)
		}
	}
	// A burst of 10 shared (one more may pass as a second elapses).
	if ok < 10 || ok > 11 {
		t.Fatalf("%d requests passed across both instances, want the shared burst of 10", ok)
	}
	if res := getWithKey(t, b.URL, other); res.StatusCode != 200 || res.Header.Get("RateLimit-Remaining") != "9" {
		t.Fatalf("other key: %d %v", res.StatusCode, res.Header)
	}
	if server.LimiterFailOpenTotal() != before {
		t.Fatal("fail-open counted while Redis answered")
	}
}

// A Redis the test starts itself is stopped mid-test: requests keep
// succeeding (each instance limits alone) and the fail-open is counted.
func TestRateLimitRedisStopped(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("TRAINEED_REQUIRE_REDIS") == "1" {
			t.Fatal("redis-server not found")
		}
		t.Skip("redis-server not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	u := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	probe := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer probe.Close()
	for i := 0; probe.Ping(context.Background()).Err() != nil; i++ { // wait for it to listen
		if i > 200 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	a, b, key, _ := limitedPair(t, func() server.RateLimiter {
		l, rdb, err := newRedisLimiter(u, "t:", 1200, 100, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rdb.Close() })
		return l
	})
	for _, base := range []string{a.URL, b.URL} {
		if res := getWithKey(t, base, key); res.StatusCode != 200 || res.Header.Get("RateLimit-Remaining") == "" {
			t.Fatalf("with Redis: %d %v", res.StatusCode, res.Header)
		}
	}
	before := server.LimiterFailOpenTotal()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	stopped = true
	for i := range 20 {
		base := a.URL
		if i%2 == 1 {
			base = b.URL
		}
		if res := getWithKey(t, base, key); res.StatusCode != 200 || res.Header.Get("RateLimit-Limit") != "1200" {
			t.Fatalf("request %d without Redis: %d %v", i, res.StatusCode, res.Header)
		}
	}
	if n := server.LimiterFailOpenTotal() - before; n != 20 {
		t.Fatalf("fail-open counted %d times, want 20", n)
	}
}

func redisTestLimiter(t *testing.T, rate, burst int) *redisLimiter {
	t.Helper()
	l, rdb, err := newRedisLimiter(redisURL(t), fmt.Sprintf("traineed-test:%d:", time.Now().UnixNano()), rate, burst, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	return l
}

// An instance leases tokens: a run of requests of one key far from its
// limit asks Redis a few times, not once a request, and the headers still
// count every request.
func TestRedisLimiterLeases(t *testing.T) {
	l := redisTestLimiter(t, 60000, 1000)
	now := time.Now()
	for i := range 300 {
		d := l.Allow(7, now)
		if !d.Allowed || d.Limit != 60000 {
			t.Fatalf("request %d: %+v", i, d)
		}
		// Nothing regenerates in a frozen now, to the 1 ms a token of 60,000 a
		// minute takes while the test runs.
		if want := 1000 - 1 - i; d.Remaining > want+5 || d.Remaining < want-5 {
			t.Fatalf("request %d: remaining %d, want about %d", i, d.Remaining, want)
		}
	}
	if n := l.asks.Load(); n > 6 {
		t.Fatalf("300 requests asked Redis %d times", n)
	}
	// Another key has its own bucket and its own lease.
	if d := l.Allow(8, now); !d.Allowed || d.Remaining != 999 {
		t.Fatalf("other key: %+v", d)
	}
}

// A refusal is remembered until its Retry-After: the requests refused
// meanwhile do not ask Redis, and the next after it does.
func TestRedisLimiterRemembersRefusal(t *testing.T) {
	l := redisTestLimiter(t, 60, 3) // a token a second
	now := time.Now()
	for i := range 3 {
		if d := l.Allow(1, now); !d.Allowed {
			t.Fatalf("request %d of the burst refused: %+v", i, d)
		}
	}
	d := l.Allow(1, now)
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > time.Second || d.Remaining != 0 {
		t.Fatalf("over the burst: %+v", d)
	}
	asks := l.asks.Load()
	for range 20 {
		if d := l.Allow(1, now.Add(d.RetryAfter/2)); d.Allowed || d.RetryAfter <= 0 {
			t.Fatalf("within Retry-After: %+v", d)
		}
	}
	if n := l.asks.Load(); n != asks {
		t.Fatalf("refusals within Retry-After asked Redis %d times", n-asks)
	}
	time.Sleep(d.RetryAfter + 50*time.Millisecond)
	if d := l.Allow(1, time.Now()); !d.Allowed {
		t.Fatalf("after Retry-After: %+v", d)
	}
	if l.asks.Load() != asks+1 {
		t.Fatal("the request after Retry-After did not ask Redis")
	}
}

// Leases never let two instances together pass more than the shared limit:
// eight goroutines on each of two instances spend one key's burst of 100.
func TestRedisLimiterLeasesKeepTheSharedLimit(t *testing.T) {
	u := redisURL(t)
	prefix := fmt.Sprintf("traineed-test:%d:", time.Now().UnixNano())
	var ls []*redisLimiter
	for range 2 {
		l, rdb, err := newRedisLimiter(u, prefix, 60, 100, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rdb.Close() })
		ls = append(ls, l)
	}
	start := time.Now()
	var passed atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for range 40 {
				if ls[g%2].Allow(42, time.Now()).Allowed {
					passed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	// One token a second regenerates while the test runs.
	most := 100 + int64(time.Since(start)/time.Second) + 1
	if n := passed.Load(); n > most || n < 90 {
		t.Fatalf("%d of 640 requests passed, want the burst of 100 (at most %d)", n, most)
	}
	if asks := ls[0].asks.Load() + ls[1].asks.Load(); asks >= 640 {
		t.Fatalf("every request asked Redis (%d)", asks)
	}
}
