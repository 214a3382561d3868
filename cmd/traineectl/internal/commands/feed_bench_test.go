package commands_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// The event feed's benchmarks (docs/performance.md):
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench 'Listen|FeedIdle' -benchtime 200x ./cmd/traineectl/internal/commands/

var feedDBs = []struct {
	name string
	open func(testing.TB) *store.Store
}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}}

// BenchmarkListenLatency is the time from a change's commit (the return
// of CreateTrainee) to `traineectl events listen -o json` printing its
// event, one change at a time: the listener on the instance that commits
// (woken in-process) and on another instance (found by its 1 s poll).
func BenchmarkListenLatency(b *testing.B) {
	for _, db := range feedDBs {
		for _, same := range []bool{true, false} {
			name := db.name + "/same-instance"
			if !same {
				name = db.name + "/other-instance"
			}
			b.Run(name, func(b *testing.B) {
				st := db.open(b)
				ctx := context.Background()
				co, err := st.CreateCompany(ctx, "Bench", "UTC")
				must(b, err)
				storetest.MustTrainer(b, st, co.ID, "Coach", "coach@bench.example")
				key := api.GenerateKey()
				_, err = st.CreateKey(ctx, co.ID, "bench", api.HashKey(key), api.KeyDisplayPrefix(key))
				must(b, err)
				h := server.NewHandler(st, server.WithHasher(cheapHasher))
				if same {
					st.OnEvent(h.NotifyEvent)
				}
				srv := httptest.NewServer(h)
				defer srv.Close()
				env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), cmdutil.EnvBaseURL+"="+srv.URL, cmdutil.EnvAPIKey+"="+key)
				rc := storetest.NewReceiver(b, nil)
				l := startListener(b, traineectlBinary(b), env, "-o", "json", "--forward-to", rc.URL)
				lat := make([]time.Duration, 0, b.N)
				n := 0
				for b.Loop() {
					n++
					_, err := st.CreateTrainee(ctx, co.ID, storetest.NewTrainee("Bench", fmt.Sprintf("b%d@example.com", n)))
					must(b, err)
					committed := time.Now()
					select {
					case <-l.lines:
					case <-time.After(time.Minute):
						b.Fatal("listen printed nothing")
					}
					lat = append(lat, time.Since(committed))
				}
				l.stop(b)
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
			})
		}
	}
}

// BenchmarkFeedIdleListeners is what 10 idle `events listen` cost the
// server over 20 s: its requests, its CPU (this process: the server and
// nothing else busy) and, on PostgreSQL, the database's transactions.
func BenchmarkFeedIdleListeners(b *testing.B) {
	const listeners, window = 10, 20 * time.Second
	for _, db := range feedDBs {
		b.Run(db.name, func(b *testing.B) {
			st := db.open(b)
			ctx := context.Background()
			co, err := st.CreateCompany(ctx, "Bench", "UTC")
			must(b, err)
			storetest.MustTrainer(b, st, co.ID, "Coach", "coach@bench.example")
			key := api.GenerateKey()
			_, err = st.CreateKey(ctx, co.ID, "bench", api.HashKey(key), api.KeyDisplayPrefix(key))
			must(b, err)
			h := server.NewHandler(st, server.WithHasher(cheapHasher))
			st.OnEvent(h.NotifyEvent)
			var reqs atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reqs.Add(1)
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			bin := traineectlBinary(b)
			var ls []*listener
			for range listeners {
				env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), cmdutil.EnvBaseURL+"="+srv.URL, cmdutil.EnvAPIKey+"="+key)
				ls = append(ls, startListener(b, bin, env, "--forward-to", "http://127.0.0.1:9/none"))
			}
			xacts := func() int64 {
				if db.name != "postgres" {
					return 0
				}
				var n int64
				must(b, storetest.DB(b, st).NewRaw("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(ctx, &n))
				return n
			}
			for b.Loop() {
				r0, c0, x0 := reqs.Load(), cpu(), xacts()
				time.Sleep(window) // the measure is what idling costs
				r1, c1, x1 := reqs.Load(), cpu(), xacts()
				secs := window.Seconds()
				b.ReportMetric(float64(r1-r0)/secs, "requests/s")
				b.ReportMetric(float64((c1-c0).Milliseconds())/secs/10, "cpu-%")
				if db.name == "postgres" {
					b.ReportMetric(float64(x1-x0)/secs, "db-xacts/s")
				}
			}
			for _, l := range ls {
				l.stop(b)
			}
		})
	}
}

// cpu is this process's user and system time.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
