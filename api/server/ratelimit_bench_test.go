package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkGetByIDRateLimit measures what the per-key limiter adds to GET
// /trainees/{id} served in process over SQLite: "off" without a limiter,
// "on" with the in-memory GCRA limiter (a limit never reached), all
// requests from one key (the worst case: one bucket, one lock).
func BenchmarkGetByIDRateLimit(b *testing.B) {
	s := storetest.SQLite(b)
	key, path := storetest.KeyAndTrainee(b, s)
	for _, c := range []struct {
		name string
		opts []server.Option
	}{
		{"off", nil},
		{"on", []server.Option{server.WithRateLimiter(server.NewMemoryLimiter(1<<30, 1<<30))}},
	} {
		h := server.NewHandler(s, append([]server.Option{server.WithHasher(cheapHasher)}, c.opts...)...)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					storetest.GetOK(b, h, path, key)
				}
			})
		})
	}
}

// BenchmarkRateLimitHeaders is the limiter's own cost per request: the
// GCRA decision and the three RateLimit-* headers, from parallel
// goroutines on one key.
func BenchmarkRateLimitHeaders(b *testing.B) {
	h := server.NewHandler(storetest.SQLite(b), server.WithRateLimiter(server.NewMemoryLimiter(1<<30, 1<<30)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := httptest.NewRecorder()
		for pb.Next() {
			if err := server.RateLimitFor(h, w, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
