package jobs_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

var benchDBs = []struct {
	name string
	open func(testing.TB) *store.Store
}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}}

var benchSeq atomic.Int64

func benchTrainee() api.NewTrainee {
	n := benchSeq.Add(1)
	return storetest.NewTrainee("Bench Trainee", fmt.Sprintf("bench%d@example.com", n))
}

// BenchmarkWebhookDelivery measures how many events per second one
// dispatcher (default settings: 8 at once) delivers to a receiver on
// 127.0.0.1 that answers 200 at once, from a backlog of b.N events:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench WebhookDelivery -benchtime 2000x ./store/
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			s := db.open(b)
			c, err := s.CreateCompany(ctx, "Bench", "UTC")
			if err != nil {
				b.Fatal(err)
			}
			rc := storetest.NewReceiver(b, nil)
			if _, err := s.CreateWebhook(ctx, c.ID, rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				if _, err := s.CreateTrainee(ctx, c.ID, benchTrainee()); err != nil {
					b.Fatal(err)
				}
			}
			d, err := jobs.NewDispatcher(s, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), PollInterval: 10 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			d.Start()
			rc.Wait(b, b.N, 10*time.Minute)
			elapsed := time.Since(start)
			b.StopTimer()
			_ = d.Shutdown(ctx)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
		})
	}
}

// BenchmarkWebhookLatency measures the time from a committed change to its
// arrival at a local receiver, one change at a time, with the dispatcher
// running (woken by the commit, not by its 1 s poll):
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench WebhookLatency -benchtime 300x ./store/
func BenchmarkWebhookLatency(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			s := db.open(b)
			c, err := s.CreateCompany(ctx, "Bench", "UTC")
			if err != nil {
				b.Fatal(err)
			}
			rc := storetest.NewReceiver(b, nil)
			if _, err := s.CreateWebhook(ctx, c.ID, rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
				b.Fatal(err)
			}
			d, err := jobs.NewDispatcher(s, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound()})
			if err != nil {
				b.Fatal(err)
			}
			d.Start()
			defer func() { _ = d.Shutdown(ctx) }()
			lat := make([]time.Duration, 0, b.N)
			n := 0
			for b.Loop() {
				n++
				if _, err := s.CreateTrainee(ctx, c.ID, benchTrainee()); err != nil {
					b.Fatal(err)
				}
				committed := time.Now()
				got := rc.Wait(b, n, time.Minute)
				lat = append(lat, max(0, got[n-1].At.Sub(committed)))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
