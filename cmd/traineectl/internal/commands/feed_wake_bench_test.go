package commands_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkListenLatencyAcrossInstances is BenchmarkListenLatency's
// other-instance case with the cross-instance wake (PostgreSQL): the
// changes are committed through store A, and `traineectl events listen`
// follows a server over store B, on the same database, whose feed poll is
// an hour away: B's wake listener answers its long-poll.
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench ListenLatencyAcross -benchtime 200x ./cmd/traineectl/internal/commands/
func BenchmarkListenLatencyAcrossInstances(b *testing.B) {
	url := storetest.PostgresURL(b)
	a, bs := storetest.Open(b, url), storetest.Open(b, url)
	ctx := context.Background()
	co, err := a.CreateCompany(ctx, "Bench", "UTC")
	must(b, err)
	storetest.MustTrainer(b, a, co.ID, "Coach", "coach@bench.example")
	key := api.GenerateKey()
	_, err = a.CreateKey(ctx, co.ID, "bench", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(b, err)
	h := server.NewHandler(bs, server.WithHasher(cheapHasher), server.WithFeedPoll(time.Hour))
	bs.OnEvent(h.NotifyEvent)
	wl, err := bs.Listen(store.ListenConfig{})
	must(b, err)
	defer wl.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	env := append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), cmdutil.EnvBaseURL+"="+srv.URL, cmdutil.EnvAPIKey+"="+key)
	rc := storetest.NewReceiver(b, nil)
	l := startListener(b, traineectlBinary(b), env, "-o", "json", "--forward-to", rc.URL)
	for wl.Connects() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	lat := make([]time.Duration, 0, b.N)
	n := 0
	for b.Loop() {
		n++
		_, err := a.CreateTrainee(ctx, co.ID, storetest.NewTrainee("Bench", fmt.Sprintf("b%d@example.com", n)))
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
}
