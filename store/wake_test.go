package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// wakeWatch is instance B's side of a cross-instance test: its listener,
// the companies its OnEvent listeners were told of, and its dispatcher's
// wake channel (read by the test itself: no dispatcher runs).
type wakeWatch struct {
	l      *store.Listener
	events chan int64
	wake   <-chan struct{}
}

// listenOn starts s's listener and waits until it listens; what its
// first connection woke (everything, once) is drained.
func listenOn(t *testing.T, s *store.Store) *wakeWatch {
	t.Helper()
	w := &wakeWatch{events: make(chan int64, 100), wake: s.Wake()}
	s.OnEvent(func(c int64) { w.events <- c })
	l, err := s.Listen(store.ListenConfig{MinBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	w.l = l
	w.connected(t, 1)
	return w
}

// connected waits until the listener has connected n times, then drains
// the wake-up of everything each connection makes.
func (w *wakeWatch) connected(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.l.Connects() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the listener connected %d times in 10 s, want %d", w.l.Connects(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	for {
		select {
		case c := <-w.events:
			if c != store.AllCompanies {
				t.Fatalf("OnEvent(%d) before any change", c)
			}
		case <-w.wake:
		default:
			return
		}
	}
}

// event waits for the next OnEvent call (a failure after 10 s: the
// notification never came).
func (w *wakeWatch) event(t *testing.T) int64 {
	t.Helper()
	select {
	case c := <-w.events:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no notification in 10 s")
		return 0
	}
}

// A change committed by one instance wakes another's dispatcher (it
// scheduled a delivery) and tells its OnEvent listeners the company; one
// without deliveries only the latter; the committing instance ignores its
// own notifications.
func TestWakeAcrossInstances(t *testing.T) {
	url := storetest.PostgresURL(t)
	a, b := storetest.Open(t, url), storetest.Open(t, url)
	ten := storetest.SetupTenants(t, a)
	rc := storetest.NewReceiver(t, nil)
	if _, err := a.CreateWebhook(ctx, ten.A, rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
		t.Fatal(err)
	}
	wb := listenOn(t, b)
	wa := listenOn(t, a)

	storetest.MustCreate(t, a, ten.A, storetest.NewTrainee("Ada Park", "ada@example.com"))
	if c := wb.event(t); c != ten.A {
		t.Fatalf("B was told of company %d, want %d", c, ten.A)
	}
	select {
	case <-wb.wake:
	default:
		t.Fatal("B's dispatcher was not woken by a change that scheduled a delivery")
	}

	// Company B has no endpoint: its event wakes the feed, not the
	// dispatcher.
	storetest.MustCreate(t, a, ten.B, storetest.NewTrainee("Bo Lee", "bo@example.com"))
	if c := wb.event(t); c != ten.B {
		t.Fatalf("B was told of company %d, want %d", c, ten.B)
	}
	select {
	case <-wb.wake:
		t.Fatal("B's dispatcher was woken by a change without deliveries")
	default:
	}

	// A heard its own notifications and ignored them: its OnEvent
	// listeners were told of each change once, by its commits.
	for _, want := range []int64{ten.A, ten.B} {
		if c := wa.event(t); c != want {
			t.Fatalf("A was told of company %d, want %d", c, want)
		}
	}
	// A change made by B reaches A, so A's listener is hearing: had A
	// taken its own notifications, they would come before this one.
	storetest.MustCreate(t, b, ten.B, storetest.NewTrainee("Cy Moss", "cy@example.com"))
	if c := wa.event(t); c != ten.B {
		t.Fatalf("A was told of company %d, want %d", c, ten.B)
	}
	select {
	case c := <-wa.events:
		t.Fatalf("A was told of company %d again", c)
	default:
	}
}

// A transaction that rolls back notifies nothing: the writes marked an
// event and a delivery (inside an idempotent request answered 500), and
// the first notification B hears is the next committed change's.
func TestWakeRollbackNotifiesNothing(t *testing.T) {
	url := storetest.PostgresURL(t)
	a, b := storetest.Open(t, url), storetest.Open(t, url)
	ten := storetest.SetupTenants(t, a)
	rc := storetest.NewReceiver(t, nil)
	if _, err := a.CreateWebhook(ctx, ten.A, rc.URL, nil, api.GenerateWebhookSecret()); err != nil {
		t.Fatal(err)
	}
	wb := listenOn(t, b)

	_, err := a.Idempotent(ctx, ten.A, "rolled-back", [32]byte{1}, func(ctx context.Context) *api.IdempotentAnswer {
		if _, err := a.CreateTrainee(ctx, ten.A, storetest.NewTrainee("Ada Park", "ada@example.com")); err != nil {
			t.Error(err)
		}
		return &api.IdempotentAnswer{Status: 500}
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := storetest.Count(t, a, "webhook_events", "company_id = ?", ten.A); n != 0 {
		t.Fatalf("%d events of company A after the rollback", n)
	}
	storetest.MustCreate(t, a, ten.B, storetest.NewTrainee("Bo Lee", "bo@example.com"))
	if c := wb.event(t); c != ten.B {
		t.Fatalf("B's first notification named company %d, want %d (the committed change's)", c, ten.B)
	}
	select {
	case <-wb.wake:
		t.Fatal("B's dispatcher was woken: the rolled-back delivery was notified")
	default:
	}
}

// The listener's connection lost (its backend terminated), it connects
// again, wakes everything once, and hears the next changes.
func TestWakeListenerReconnects(t *testing.T) {
	url := storetest.PostgresURL(t)
	a, b := storetest.Open(t, url), storetest.Open(t, url)
	ten := storetest.SetupTenants(t, a)
	wb := listenOn(t, b)
	if n := storetest.TerminateBackends(t, b); n == 0 {
		t.Fatal("no backend terminated")
	}
	// Reconnected: its wake-up of everything (AllCompanies) is drained by
	// connected, which fails on anything else.
	wb.connected(t, 2)
	storetest.MustCreate(t, a, ten.A, storetest.NewTrainee("Ada Park", "ada@example.com"))
	if c := wb.event(t); c != ten.A {
		t.Fatalf("after the reconnection B was told of company %d, want %d", c, ten.A)
	}
}
