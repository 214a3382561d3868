package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkGetByIDOverhead is what the metrics and the rate limiter add to
// GET /public-api/trainees/{id}, served in process (no network, so the
// denominator is as small as it gets), on SQLite and, with
// TRAINEED_TEST_POSTGRES, PostgreSQL; with TRAINEED_TEST_REDIS also the
// Redis limiter. A shared machine's load drifts far more than these costs,
// so the variants are interleaved: each round serves a block of requests
// with every variant in turn (the order rotating), and each variant's
// cost is compared with the base's in the same round. It reports, per
// variant, the median over rounds of the added wall time and process CPU
// time (user + system) in percent, and the spread (the 25th and 75th
// percentiles):
//
//	go test -run '^$' -bench GetByIDOverhead -benchtime 1x ./cmd/traineed/
//
// ROUNDS and BLOCK (environment) set the rounds (default 40) and the
// requests per variant per round (default 1000).
func BenchmarkGetByIDOverhead(b *testing.B) {
	dbs := []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}}
	if os.Getenv("TRAINEED_TEST_POSTGRES") != "" {
		dbs = append(dbs, struct {
			name string
			open func(testing.TB) *store.Store
		}{"postgres", storetest.Postgres})
	}
	rounds, block := envInt("ROUNDS", 40), envInt("BLOCK", 1000)
	for _, db := range dbs {
		b.Run(db.name, func(b *testing.B) {
			s := db.open(b)
			key, path := storetest.KeyAndTrainee(b, s)

			never := 1 << 30 // a limit never reached
			newMetrics := func() server.Option {
				reg := prometheus.NewRegistry()
				return server.WithMetrics(server.NewMetrics(reg, reg), true)
			}
			type variant struct {
				name string
				h    http.Handler
			}
			variants := []variant{
				{"base", server.NewHandler(s)},
				{"metrics", server.NewHandler(s, newMetrics())},
				{"limiter", server.NewHandler(s, server.WithRateLimiter(server.NewMemoryLimiter(never, never)))},
				{"metrics+limiter", server.NewHandler(s, newMetrics(), server.WithRateLimiter(server.NewMemoryLimiter(never, never)))},
			}
			if u := os.Getenv("TRAINEED_TEST_REDIS"); u != "" {
				log := slog.New(slog.NewTextHandler(io.Discard, nil))
				l, rc, err := newRedisLimiter(u, fmt.Sprintf("bench-%d:", time.Now().UnixNano()), never, never, log)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { rc.Close() })
				variants = append(variants, variant{"redis-limiter", server.NewHandler(s, server.WithRateLimiter(l))})
			}
			serve := func(h http.Handler, n int) {
				for range n {
					storetest.GetOK(b, h, path, key)
				}
			}
			for _, v := range variants { // warm caches, pools and prepared statements
				serve(v.h, block/4+1)
			}
			wall := make([][]float64, len(variants)) // per variant, per round: ns per request
			cpu := make([][]float64, len(variants))
			b.ResetTimer()
			for r := range rounds {
				for i := range variants {
					k := (i + r) % len(variants)
					t0, c0 := time.Now(), processCPU()
					serve(variants[k].h, block)
					wall[k] = append(wall[k], float64(time.Since(t0).Nanoseconds())/float64(block))
					cpu[k] = append(cpu[k], float64(processCPU()-c0)/float64(block))
				}
			}
			b.StopTimer()
			b.ReportMetric(median(wall[0])/1000, "base-wall-µs")
			b.ReportMetric(median(cpu[0])/1000, "base-cpu-µs")
			for k := 1; k < len(variants); k++ {
				w25, w50, w75 := addedPercent(wall[k], wall[0])
				c25, c50, c75 := addedPercent(cpu[k], cpu[0])
				b.ReportMetric(w50, variants[k].name+"-wall-%")
				b.ReportMetric(c50, variants[k].name+"-cpu-%")
				fmt.Printf("%s %-16s wall %+6.2f %% [%+.2f, %+.2f]   cpu %+6.2f %% [%+.2f, %+.2f]   (%d rounds × %d requests)\n",
					db.name, variants[k].name, w50, w25, w75, c50, c25, c75, rounds, block)
			}
		})
	}
}

// addedPercent is the quartiles over rounds of how much v costs more than
// base in the same round, in percent.
func addedPercent(v, base []float64) (q25, q50, q75 float64) {
	d := make([]float64, len(v))
	for i := range v {
		d[i] = (v[i]/base[i] - 1) * 100
	}
	slices.Sort(d)
	return d[len(d)/4], d[len(d)/2], d[len(d)*3/4]
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
