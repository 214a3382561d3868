package jobs_test

import (
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// twoInstances is two stores on one PostgreSQL database: A, where changes
// are made, and B, whose dispatcher polls once an hour, so that only B's
// listener can start a delivery within a test. A has no dispatcher: every
// delivery is B's.
type twoInstances struct {
	a, b    *store.Store
	company int64
	rc      *storetest.Receiver
	l       *store.Listener
	d       *jobs.Dispatcher
}

func newTwoInstances(t testing.TB) *twoInstances {
	t.Helper()
	url := storetest.PostgresURL(t)
	x := &twoInstances{a: storetest.Open(t, url), b: storetest.Open(t, url)}
	c, err := x.a.CreateCompany(ctx, "Shared", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	x.company = c.ID
	storetest.MustTrainer(t, x.a, c.ID, "Coach", "coach@shared.example")
	x.rc = storetest.NewReceiver(t, nil)
	if _, err := x.a.CreateWebhook(ctx, c.ID, x.rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
		t.Fatal(err)
	}
	if x.l, err = x.b.Listen(store.ListenConfig{MinBackoff: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.l.Close)
	x.d, err = jobs.NewDispatcher(x.b, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	x.d.Start()
	t.Cleanup(func() { _ = x.d.Shutdown(ctx) })
	x.connected(t, 1)
	return x
}

// connected waits until B's listener has connected n times. Its wake-up
// of everything may start one cycle of B's dispatcher more, which may find
// the next change: so every test makes one change more than it needs
// woken by a notification.
func (x *twoInstances) connected(t testing.TB, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for x.l.Connects() < n {
		if time.Now().After(deadline) {
			t.Fatalf("B's listener connected %d times in 10 s, want %d", x.l.Connects(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// create commits a trainee through A and returns when.
func (x *twoInstances) create(t testing.TB) time.Time {
	t.Helper()
	if _, err := x.a.CreateTrainee(ctx, x.company, benchTrainee()); err != nil {
		t.Fatal(err)
	}
	return time.Now()
}

// A change committed on instance A is delivered by instance B's
// dispatcher, whose poll is an hour away: B's listener woke it (for the
// second and third at least).
func TestWakeDeliveryAcrossInstances(t *testing.T) {
	x := newTwoInstances(t)
	for i := 1; i <= 3; i++ {
		x.create(t)
		got := x.rc.Wait(t, i, 30*time.Second)
		if got[i-1].Event.Type != api.EventTraineeCreated {
			t.Fatalf("delivery %d: %+v", i, got[i-1].Event)
		}
	}
}

// B's listener loses its connection (every backend of the database
// terminated), connects again, and B goes on delivering A's changes at
// once: the first by the notification or by the wake-up of everything
// that follows a connection (one wake-up: one cycle more at most), the
// second by its notification.
func TestWakeDeliveryAfterListenerReconnects(t *testing.T) {
	x := newTwoInstances(t)
	x.create(t)
	x.rc.Wait(t, 1, 30*time.Second)
	if n := storetest.TerminateBackends(t, x.b); n == 0 {
		t.Fatal("no backend terminated")
	}
	x.connected(t, 2)
	for i := 2; i <= 3; i++ {
		x.create(t)
		x.rc.Wait(t, i, 30*time.Second)
	}
}

// BenchmarkWakeAcrossInstances measures the time from a change committed
// on instance A to its arrival at a local receiver, delivered by instance
// B's dispatcher (polling once an hour: woken by the notification), one
// change at a time; p50 and p95:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench WakeAcrossInstances -benchtime 200x ./jobs/
func BenchmarkWakeAcrossInstances(b *testing.B) {
	x := newTwoInstances(b)
	lat := make([]time.Duration, 0, b.N)
	n := 0
	for b.Loop() {
		n++
		committed := x.create(b)
		got := x.rc.Wait(b, n, time.Minute)
		lat = append(lat, max(0, got[n-1].At.Sub(committed)))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
