package jobs_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
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
// dispatcher (default settings: 8 at once, 2 per endpoint) delivers to one
// endpoint, a receiver on 127.0.0.1 that answers 200 at once, from a
// backlog of b.N events: events/s until the receiver has them all,
// recorded/s until the outbox has recorded them all too. Since the rate
// depends on what else the machine runs, it also reports the CPU time per
// event, until all are recorded, of this process (the dispatcher and the
// receiver: cpu-us/event) and, on PostgreSQL, of the database's backends
// serving it (pg-cpu-us/event, from /proc: the database must run on this
// machine), the connections the receiver accepted (conns), and the
// dispatcher's transactions (tx/event) and claims (claims/event) per event:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench WebhookDelivery -benchtime 2000x ./jobs/
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, db := range benchDBs {
		b.Run(db.name, func(b *testing.B) {
			s := db.open(b)
			c, err := s.CreateCompany(ctx, "Bench", "UTC")
			if err != nil {
				b.Fatal(err)
			}
			storetest.MustTrainer(b, s, c.ID, "Bench Coach", "coach@bench.example") // a trainee needs an active trainer
			rc := storetest.NewReceiver(b, nil)
			if _, err := s.CreateWebhook(ctx, c.ID, rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				if _, err := s.CreateTrainee(ctx, c.ID, benchTrainee()); err != nil {
					b.Fatal(err)
				}
			}
			co := &countingOutbox{Store: s}
			d, err := jobs.NewDispatcher(co, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), PollInterval: 10 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			pg0 := backendCPU(b, s, db.name)
			cpu0 := processCPU()
			b.ResetTimer()
			start := time.Now()
			d.Start()
			rc.Wait(b, b.N, 10*time.Minute)
			elapsed := time.Since(start)
			// Recorded too: no delivery left pending.
			for storetest.Count(b, s, "webhook_deliveries", "status = ?", api.DeliveryPending) > 0 {
				time.Sleep(time.Millisecond)
			}
			recorded := time.Since(start)
			b.StopTimer()
			cpu := processCPU() - cpu0
			pg := backendCPU(b, s, db.name)
			_ = d.Shutdown(ctx)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
			b.ReportMetric(float64(b.N)/recorded.Seconds(), "recorded/s")
			b.ReportMetric(float64(rc.Conns()), "conns")
			b.ReportMetric(float64(co.cycles.Load())/float64(b.N), "tx/event")
			b.ReportMetric(float64(co.claims.Load())/float64(b.N), "claims/event")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/event")
			if pg != nil {
				var sum time.Duration
				for pid, t := range pg {
					sum += t - pg0[pid]
				}
				b.ReportMetric(float64(sum.Microseconds())/float64(b.N), "pg-cpu-us/event")
			}
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
			storetest.MustTrainer(b, s, c.ID, "Bench Coach", "coach@bench.example") // a trainee needs an active trainer
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

// countingOutbox counts the dispatcher's cycles (one transaction each) and
// the claims among them.
type countingOutbox struct {
	*store.Store
	cycles, claims atomic.Int64
}

func (o *countingOutbox) CycleDeliveries(ctx context.Context, done []*store.FinishedAttempt, release []*store.ClaimedDelivery, schedule []time.Duration, limit int, lim store.ClaimLimits, lease time.Duration) ([]*store.ClaimedDelivery, error) {
	o.cycles.Add(1)
	if limit > 0 {
		o.claims.Add(1)
	}
	return o.Store.CycleDeliveries(ctx, done, release, schedule, limit, lim, lease)
}

// processCPU is this process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendCPU is the CPU time so far of each PostgreSQL backend connected
// to the database of s (read from /proc), nil on SQLite.
func backendCPU(b *testing.B, s *store.Store, dbName string) map[int]time.Duration {
	if dbName != "postgres" {
		return nil
	}
	var pids []int
	if err := storetest.DB(b, s).NewRaw("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(ctx, &pids); err != nil {
		b.Fatal(err)
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of stat(5)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		out[pid] = time.Duration(ut+st) * time.Second / 100 // clock ticks (USER_HZ: 100)
	}
	return out
}
