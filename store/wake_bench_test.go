package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkWakeCost measures what the cross-instance wake (a NOTIFY sent
// after each commit, PostgreSQL) costs the changes that send it, against a
// store without it, each side a company with one endpoint (every create
// schedules a delivery): "serial" runs creates one at a time, interleaved,
// and reports the medians; "parallel" runs b.N creates per side from 8
// goroutines, the sides alternating in 4 rounds, and reports each side's
// creates a second:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench WakeCost -benchtime 2000x ./store/
func BenchmarkWakeCost(b *testing.B) {
	setup := func(b *testing.B, wake bool) *changeSide {
		s := storetest.Postgres(b)
		if !wake {
			store.StopWakeSender(s)
		}
		c, err := s.CreateCompany(ctx, "Bench", "UTC")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateTrainer(ctx, c.ID, "Coach", fmt.Sprintf("coach%d@bench.example.com", benchSeq.Add(1))); err != nil {
			b.Fatal(err)
		}
		// Nobody dispatches: the deliveries stay pending.
		if _, err := s.CreateWebhook(ctx, c.ID, "http://127.0.0.1:9/hook", nil, api.GenerateWebhookSecret()); err != nil {
			b.Fatal(err)
		}
		return &changeSide{s: s, company: c.ID}
	}
	b.Run("serial", func(b *testing.B) {
		base, wake := setup(b, false), setup(b, true)
		i := 0
		for b.Loop() {
			i++
			base.change(b, "create", i)
			wake.change(b, "create", i)
		}
		mb, mw := medianMicros(base.took), medianMicros(wake.took)
		b.ReportMetric(mb, "base-µs")
		b.ReportMetric(mw, "wake-µs")
		b.ReportMetric(mw-mb, "added-µs")
	})
	b.Run("parallel", func(b *testing.B) {
		base, wake := setup(b, false), setup(b, true)
		var took [2]time.Duration
		b.ResetTimer()
		for round := range 4 {
			order := []int{0, 1} // base first, then wake first, ...
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				took[i] += createMany(b, []*changeSide{base, wake}[i], b.N/4, 8)
			}
		}
		b.ReportMetric(float64(b.N/4*4)/took[0].Seconds(), "base-creates/s")
		b.ReportMetric(float64(b.N/4*4)/took[1].Seconds(), "wake-creates/s")
	})
}

// createMany creates n trainees on side from workers goroutines and
// returns how long it took.
func createMany(b *testing.B, side *changeSide, n, workers int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for range next {
				if _, err := side.s.CreateTrainee(ctx, side.company, benchTrainee()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}
