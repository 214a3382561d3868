package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// fast is a dispatcher configuration for tests: it polls often.
func fast(cfg jobs.DispatcherConfig) jobs.DispatcherConfig {
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	return cfg
}

// startDispatcher runs a dispatcher, shut down when the test ends. Its
// receivers are the tests' own, on loopback: allowed as an operator would
// (--webhook-allow 127.0.0.0/8) unless cfg brings its own client.
func startDispatcher(t *testing.T, s *store.Store, cfg jobs.DispatcherConfig) *jobs.Dispatcher {
	t.Helper()
	if cfg.Outbound == nil {
		cfg.Outbound = storetest.LoopbackOutbound()
	}
	d, err := jobs.NewDispatcher(s, fast(cfg))
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = d.Shutdown(ctx)
	})
	return d
}

// waitDelivered waits until no delivery is pending.
func waitDelivered(t *testing.T, s *store.Store, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		n := storetest.Count(t, s, "webhook_deliveries", "status = ?", api.DeliveryPending)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending after %s", n, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func attempts(t *testing.T, s *store.Store, webhookID int64) []*api.WebhookAttempt {
	t.Helper()
	as, err := s.WebhookAttempts(ctx, webhookID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// Failing receivers (a 500, a timeout, a refused connection) are retried on
// the schedule with the same webhook-id and a fresh signature, every attempt
// is recorded, and the delivery is failed after the last; a receiver that
// recovers gets the delivery marked succeeded.
func TestWebhookRetries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		failing := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(strings.Repeat("x", 3000)))
		})
		hanging := storetest.NewReceiver(t, func(_ http.ResponseWriter, r *http.Request, _ *storetest.Received, _ int) {
			<-r.Context().Done()
		})
		flaky := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, nth int) {
			if nth < 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		redirect := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, _ *storetest.Received, _ int) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound) // not followed: a failure
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		refusedURL := "http://" + ln.Addr().String() + "/hook"
		ln.Close()

		hFailing, secret := storetest.AddWebhook(t, s, tn.A, failing.URL)
		hHanging, _ := storetest.AddWebhook(t, s, tn.A, hanging.URL)
		hFlaky, _ := storetest.AddWebhook(t, s, tn.A, flaky.URL)
		hRedirect, _ := storetest.AddWebhook(t, s, tn.A, redirect.URL)
		hRefused, _ := storetest.AddWebhook(t, s, tn.A, refusedURL)

		schedule := []time.Duration{150 * time.Millisecond, 300 * time.Millisecond}
		startDispatcher(t, s, jobs.DispatcherConfig{Schedule: schedule, Timeout: 250 * time.Millisecond})
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Retry Me", "retry@example.com"))
		waitDelivered(t, s, 20*time.Second)

		for name, rc := range map[string]*storetest.Receiver{"500": failing, "timeout": hanging, "503 twice": flaky, "302": redirect} {
			got := rc.Received()
			if len(got) != 3 {
				t.Fatalf("%s: %d requests, want 3 (one attempt and two retries)", name, len(got))
			}
			for i, r := range got {
				if r.ID != got[0].ID {
					t.Errorf("%s: attempt %d has webhook-id %s, want %s", name, i+1, r.ID, got[0].ID)
				}
				if string(r.Body) != string(got[0].Body) {
					t.Errorf("%s: attempt %d sent another body", name, i+1)
				}
				if i > 0 && r.At.Sub(got[i-1].At) < schedule[i-1] {
					t.Errorf("%s: attempt %d came %s after the previous, before the %s of the schedule", name, i+1, r.At.Sub(got[i-1].At), schedule[i-1])
				}
			}
		}
		for _, r := range failing.Received() {
			if err := r.Verify(secret); err != nil {
				t.Errorf("retry signature: %v", err)
			}
		}

		check := func(name string, hook int64, state string, status []int, errPart string) {
			t.Helper()
			as := attempts(t, s, hook)
			if len(as) != 3 {
				t.Fatalf("%s: %d attempts recorded, want 3: %+v", name, len(as), as)
			}
			for i, a := range as {
				if a.Attempt != 3-i || a.State != state || a.LatencyMs == nil {
					t.Errorf("%s: row %d = attempt %d state %s latency %v, want attempt %d state %s", name, i, a.Attempt, a.State, a.LatencyMs, 3-i, state)
				}
				want := status[len(status)-1-i]
				switch {
				case want == 0 && a.StatusCode != nil:
					t.Errorf("%s: attempt %d has status %d, want none", name, a.Attempt, *a.StatusCode)
				case want != 0 && (a.StatusCode == nil || *a.StatusCode != want):
					t.Errorf("%s: attempt %d status %v, want %d", name, a.Attempt, a.StatusCode, want)
				}
				if failedAttempt := state == api.DeliveryFailed || a.Attempt < 3; failedAttempt {
					if a.Error == nil || !strings.Contains(*a.Error, errPart) {
						t.Errorf("%s: attempt %d error %v, want it to mention %q", name, a.Attempt, a.Error, errPart)
					}
				}
			}
		}
		check("500", hFailing, api.DeliveryFailed, []int{500, 500, 500}, "status 500")
		check("timeout", hHanging, api.DeliveryFailed, []int{0, 0, 0}, "timeout")
		check("refused", hRefused, api.DeliveryFailed, []int{0, 0, 0}, "refused")
		check("302", hRedirect, api.DeliveryFailed, []int{302, 302, 302}, "status 302")
		check("503 twice", hFlaky, api.DeliverySucceeded, []int{503, 503, 204}, "status 503")
		if a := attempts(t, s, hFlaky)[0]; a.Error != nil {
			t.Errorf("the successful attempt has error %q", *a.Error)
		}
		if r := attempts(t, s, hFailing)[0].Response; r == nil || len(*r) != api.MaxWebhookResponse {
			t.Errorf("kept response %v, want its first %d bytes", r, api.MaxWebhookResponse)
		}
		if n := storetest.Count(t, s, "webhook_attempts", "1 = 1"); n != 15 {
			t.Errorf("%d attempts recorded, want 15", n)
		}
	})
}

// A dispatcher that dies mid-attempt leaves its lease behind: nobody sends
// the delivery until the lease expires, then another dispatcher does.
func TestWebhookExpiredLeaseIsDeliveredAgain(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		rc := storetest.NewReceiver(t, nil)
		hook, secret := storetest.AddWebhook(t, s, tn.A, rc.URL)
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Crash Test", "crash@example.com"))
		const lease = time.Second
		claimed := time.Now()
		// Claimed and never finished, as by a dispatcher that died.
		ids, err := s.ClaimDeliveries(ctx, 10, store.ClaimLimits{}, lease)
		if err != nil || len(ids) != 1 {
			t.Fatalf("claim: %v %v", ids, err)
		}
		if again, err := s.ClaimDeliveries(ctx, 10, store.ClaimLimits{}, lease); err != nil || len(again) != 0 {
			t.Fatalf("a leased delivery was claimed again: %v %v", again, err)
		}
		startDispatcher(t, s, jobs.DispatcherConfig{})
		got := rc.Wait(t, 1, 10*time.Second)[0]
		if got.At.Sub(claimed) < lease {
			t.Fatalf("delivered %s after the claim, inside the %s lease", got.At.Sub(claimed), lease)
		}
		if err := got.Verify(secret); err != nil {
			t.Fatal(err)
		}
		waitDelivered(t, s, 10*time.Second)
		as := attempts(t, s, hook)
		if len(as) != 1 || as[0].Attempt != 1 || as[0].State != api.DeliverySucceeded {
			t.Fatalf("attempts %+v", as)
		}
	})
}

// Two dispatchers on one database (two server instances) share the work
// and send every event once. Three companies' endpoints have six slots
// (two each), more than one dispatcher's four: a dispatcher that records
// an attempt claims the next in the same transaction, so one endpoint
// alone would stay with the dispatcher that holds its slots.
func TestWebhookTwoDispatchersDeliverOnce(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		s1, s2 := storetest.Open(t, url), storetest.Open(t, url)
		var companies []int64
		for i := range 3 {
			c, err := s1.CreateCompany(ctx, fmt.Sprintf("Shared %d", i), "UTC")
			if err != nil {
				t.Fatal(err)
			}
			storetest.MustTrainer(t, s1, c.ID, "Coach", fmt.Sprintf("coach%d@shared.example", i))
			companies = append(companies, c.ID)
		}
		// The first requests wait until five are in flight at once: more
		// than one dispatcher's four, so both must hold slots. Without the
		// gate the test measured a race (on SQLite the first dispatcher
		// could drain all 150 before the second made its first claim).
		var inFlight atomic.Int32
		both := make(chan struct{})
		var bothOnce sync.Once
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			if inFlight.Add(1) >= 5 {
				bothOnce.Do(func() { close(both) })
			}
			select {
			case <-both:
			case <-time.After(5 * time.Second):
			}
			time.Sleep(2 * time.Millisecond)
			inFlight.Add(-1)
			w.WriteHeader(http.StatusOK)
		})
		for _, c := range companies {
			storetest.AddWebhook(t, s1, c, rc.URL)
		}
		const n = 150
		for i := range n {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			storetest.MustCreate(t, s, companies[i%3], storetest.NewTrainee("Many", fmt.Sprintf("many%d@example.com", i)))
		}
		var sent [2]atomic.Int32
		count := func(i int) func(string) { return func(string) { sent[i].Add(1) } }
		startDispatcher(t, s1, jobs.DispatcherConfig{Concurrency: 4, OnAttempt: count(0)})
		startDispatcher(t, s2, jobs.DispatcherConfig{Concurrency: 4, OnAttempt: count(1)})
		rc.Wait(t, n, 30*time.Second)
		waitDelivered(t, s1, 10*time.Second)
		seen := map[string]int{}
		for _, r := range rc.Received() {
			seen[r.ID]++
		}
		if len(seen) != n {
			t.Fatalf("%d distinct events delivered, want %d", len(seen), n)
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("%s delivered %d times", id, k)
			}
		}
		select {
		case <-both:
		default:
			t.Errorf("never more than four requests in flight: one dispatcher did all the work")
		}
		if sent[0].Load() == 0 || sent[1].Load() == 0 {
			t.Errorf("one dispatcher did all the work: %d and %d", sent[0].Load(), sent[1].Load())
		}
		if k := storetest.Count(t, s1, "webhook_attempts", "1 = 1"); k != n {
			t.Errorf("%d attempts recorded, want %d", k, n)
		}
		if k := storetest.Count(t, s1, "webhook_deliveries", "status = ? AND attempts = 1", api.DeliverySucceeded); k != n {
			t.Errorf("%d deliveries succeeded at the first attempt, want %d", k, n)
		}
		t.Logf("dispatcher 1 sent %d, dispatcher 2 sent %d", sent[0].Load(), sent[1].Load())
	})
}

// Shutdown lets an attempt in flight finish and records it; when the grace
// runs out first it cancels the attempt and releases the delivery, which
// another dispatcher then sends.
func TestWebhookDispatcherShutdown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		release := make(chan struct{})
		var once sync.Once
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, _ *storetest.Received, nth int) {
			switch nth {
			case 1: // finishes during the grace
				time.Sleep(300 * time.Millisecond)
				w.WriteHeader(http.StatusOK)
			default:
				select {
				case <-release:
					w.WriteHeader(http.StatusOK)
				case <-r.Context().Done():
				}
			}
		})
		hook, _ := storetest.AddWebhook(t, s, tn.A, rc.URL)

		d, err := jobs.NewDispatcher(s, fast(jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), Timeout: 5 * time.Second}))
		if err != nil {
			t.Fatal(err)
		}
		d.Start()
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("In Flight", "flight@example.com"))
		rc.Wait(t, 1, 10*time.Second)
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := d.Shutdown(sctx); err != nil {
			t.Fatalf("shutdown with an attempt in flight: %v", err)
		}
		if as := attempts(t, s, hook); len(as) != 1 || as[0].State != api.DeliverySucceeded {
			t.Fatalf("the attempt in flight at shutdown was not recorded: %+v", as)
		}

		// This one hangs past the grace.
		d, err = jobs.NewDispatcher(s, fast(jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), Timeout: 5 * time.Second}))
		if err != nil {
			t.Fatal(err)
		}
		d.Start()
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Stuck", "stuck@example.com"))
		first := rc.Wait(t, 2, 10*time.Second)[1]
		sctx, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel2()
		if err := d.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("shutdown past the grace: %v", err)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "status = ? AND attempts = 0 AND locked_until IS NULL AND lease IS NULL", api.DeliveryPending); n != 1 {
			t.Fatalf("the cancelled delivery was not released (%d released)", n)
		}
		once.Do(func() { close(release) })
		startDispatcher(t, s, jobs.DispatcherConfig{})
		again := rc.Wait(t, 3, 10*time.Second)[2]
		if again.ID != first.ID {
			t.Fatalf("redelivered %s, want %s", again.ID, first.ID)
		}
		waitDelivered(t, s, 10*time.Second)
		if as := attempts(t, s, hook); len(as) != 2 || as[0].Attempt != 1 || as[0].State != api.DeliverySucceeded {
			t.Fatalf("attempts %+v", as)
		}
	})
}

func TestWebhookAdmin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		rc := storetest.NewReceiver(t, nil)
		secret := api.GenerateWebhookSecret()
		for name, c := range map[string]struct {
			company int64
			url     string
			events  []string
			secret  string
		}{
			"ftp URL":         {tn.A, "ftp://example.com/x", nil, secret},
			"relative URL":    {tn.A, "/hooks", nil, secret},
			"unknown event":   {tn.A, rc.URL, []string{"trainee.archived"}, secret},
			"bad secret":      {tn.A, rc.URL, nil, "whsec_***"},
			"unknown company": {999, rc.URL, nil, secret},
		} {
			if _, err := s.CreateWebhook(ctx, c.company, c.url, c.events, c.secret); err == nil {
				t.Errorf("%s: accepted", name)
			} else if name == "unknown company" && !errors.Is(err, api.ErrNotFound) {
				t.Errorf("%s: %v, want not found", name, err)
			}
		}
		w, err := s.CreateWebhook(ctx, tn.A, rc.URL, nil, secret)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := s.Webhooks(ctx, tn.A)
		if err != nil || len(ws) != 1 || ws[0].ID != w.ID || ws[0].URL != rc.URL || ws[0].State != api.WebhookActive ||
			!slices.Equal(ws[0].Events, api.TraineeEventTypes) || ws[0].CompanyID != tn.A {
			t.Fatalf("webhooks %+v %v", ws, err)
		}
		if ws, _ := s.Webhooks(ctx, tn.B); len(ws) != 0 {
			t.Fatalf("company B lists %+v", ws)
		}

		// Disabled: deliveries wait; enabled again: they go.
		if err := s.SetWebhookDisabled(ctx, w.ID, true); err != nil {
			t.Fatal(err)
		}
		ws, _ = s.Webhooks(ctx, tn.A)
		if ws[0].State != api.WebhookDisabled {
			t.Fatalf("state %s", ws[0].State)
		}
		d := startDispatcher(t, s, jobs.DispatcherConfig{})
		tr := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Paused", "paused@example.com"))
		jobs.WaitCycles(t, d, 2) // a claim after the commit found nothing to send
		if rc.Count() != 0 {
			t.Fatal("a disabled webhook was sent an event")
		}
		as := attempts(t, s, w.ID)
		if len(as) != 1 || as[0].Attempt != 0 || as[0].State != api.DeliveryPending || as[0].NextAttemptAt == nil || as[0].StatusCode != nil {
			t.Fatalf("pending delivery shows as %+v", as)
		}
		if err := s.SetWebhookDisabled(ctx, w.ID, false); err != nil {
			t.Fatal(err)
		}
		first := rc.Wait(t, 1, 10*time.Second)[0]
		if first.Event.Data.Trainee.ID != tr.ID {
			t.Fatalf("delivered %s", first.Body)
		}
		waitDelivered(t, s, 10*time.Second)

		// Redeliver: the same event, the same webhook-id.
		ids, err := s.Redeliver(ctx, first.ID)
		if err != nil || len(ids) != 1 {
			t.Fatalf("redeliver: %v %v", ids, err)
		}
		again := rc.Wait(t, 2, 10*time.Second)[1]
		if again.ID != first.ID || string(again.Body) != string(first.Body) {
			t.Fatalf("redelivered %s %s, want %s %s", again.ID, again.Body, first.ID, first.Body)
		}
		if err := again.Verify(secret); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Redeliver(ctx, "evt_nosuchevent000000000000"); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("unknown event: %v", err)
		}
		// Company B's endpoint only wants deletions: its created event has
		// no subscriber.
		storetest.AddWebhook(t, s, tn.B, rc.URL, api.EventTraineeDeleted)
		storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Bea", "bea.t@example.com"))
		var bEvent string
		if err := storetest.DB(t, s).NewSelect().Table("webhook_events").Column("public_id").Where("company_id = ?", tn.B).Scan(ctx, &bEvent); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Redeliver(ctx, bEvent); !errors.Is(err, store.ErrNoSubscriber) {
			t.Fatalf("event without subscriber: %v", err)
		}

		if _, err := s.WebhookAttempts(ctx, 999, 10); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("attempts of an unknown webhook: %v", err)
		}
		if err := s.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "webhook_id = ?", w.ID); n != 0 {
			t.Fatalf("%d deliveries of a deleted webhook", n)
		}
		if err := s.DeleteWebhook(ctx, w.ID); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("delete again: %v", err)
		}
		if err := s.SetWebhookDisabled(ctx, w.ID, true); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("disable a deleted webhook: %v", err)
		}
	})
}

// Events older than the retention go once their deliveries are finished.
func TestPruneWebhookEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		rc := storetest.NewReceiver(t, nil)
		storetest.AddWebhook(t, s, tn.A, rc.URL)
		now := time.Now()
		oldA := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Old A", "old.a@example.com")) // pending delivery
		oldB := storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Old B", "old.b@example.com")) // no delivery
		// Both changes happened 40 days ago.
		if _, err := storetest.DB(t, s).NewUpdate().Table("webhook_events").Set("created_at = ?", now.Add(-40*24*time.Hour).UTC()).
			Where("trainee_id IN (?, ?)", oldA.ID, oldB.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("New B", "new.b@example.com"))
		cutoff := now.Add(-30 * 24 * time.Hour)
		if n, err := s.PruneWebhookEvents(ctx, cutoff); err != nil || n != 1 {
			t.Fatalf("pruned %d, %v; want only the old event without deliveries", n, err)
		}
		startDispatcher(t, s, jobs.DispatcherConfig{})
		rc.Wait(t, 1, 10*time.Second)
		waitDelivered(t, s, 10*time.Second)
		if n, err := s.PruneWebhookEvents(ctx, cutoff); err != nil || n != 1 {
			t.Fatalf("pruned %d, %v; want the delivered old event", n, err)
		}
		if n := storetest.Count(t, s, "webhook_events", "1 = 1"); n != 1 {
			t.Errorf("%d events left, want the new one", n)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "1 = 1") + storetest.Count(t, s, "webhook_attempts", "1 = 1"); n != 0 {
			t.Errorf("%d deliveries and attempts left of pruned events", n)
		}
	})
}

// One endpoint gets at most EndpointConcurrency deliveries at once, over
// every dispatcher sharing the database, and a slow endpoint does not hold
// up another's deliveries.
func TestEndpointConcurrency(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		s1, s2 := storetest.Open(t, url), storetest.Open(t, url)
		tn := storetest.SetupTenants(t, s1)
		release := make(chan struct{})
		var inflight, peak atomic.Int32
		slow := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, _ *storetest.Received, _ int) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusOK)
		})
		fast := storetest.NewReceiver(t, nil)
		storetest.AddWebhook(t, s1, tn.A, slow.URL)
		storetest.AddWebhook(t, s1, tn.B, fast.URL)
		const n = 6
		for i := range n {
			storetest.MustCreate(t, s1, tn.A, storetest.NewTrainee("Slow", fmt.Sprintf("slow%d@example.com", i)))
			storetest.MustCreate(t, s1, tn.B, storetest.NewTrainee("Fast", fmt.Sprintf("fast%d@example.com", i)))
		}
		startDispatcher(t, s1, jobs.DispatcherConfig{Concurrency: 8, Timeout: 10 * time.Second, Lease: 30 * time.Second})
		startDispatcher(t, s2, jobs.DispatcherConfig{Concurrency: 8, Timeout: 10 * time.Second, Lease: 30 * time.Second})
		// The other company's endpoint gets all of its events while the
		// slow one holds its two.
		fast.Wait(t, n, 10*time.Second)
		time.Sleep(200 * time.Millisecond) // room for a third request to the slow endpoint, if one were sent
		if p := peak.Load(); p != jobs.DefaultEndpointConcurrency {
			t.Fatalf("the slow endpoint had %d requests at once, want %d", p, jobs.DefaultEndpointConcurrency)
		}
		close(release)
		slow.Wait(t, n, 10*time.Second)
		waitDelivered(t, s1, 10*time.Second)
		if p := peak.Load(); p > jobs.DefaultEndpointConcurrency {
			t.Fatalf("the slow endpoint had %d requests at once", p)
		}
	})
}

// One company's endpoints together get at most CompanyConcurrency
// deliveries at once, whatever their number (the same receiver registered
// under many endpoints amplifies nothing), and another company's
// deliveries go meanwhile.
func TestCompanyConcurrency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		release := make(chan struct{})
		var inflight, peak atomic.Int32
		slow := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, _ *storetest.Received, _ int) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusOK)
		})
		fast := storetest.NewReceiver(t, nil)
		for i := range 6 { // six endpoints, one receiver: 12 slots by endpoint
			storetest.AddWebhook(t, s, tn.A, fmt.Sprintf("%s?copy=%d", slow.URL, i))
		}
		storetest.AddWebhook(t, s, tn.B, fast.URL)
		for i := range 3 {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Slow", fmt.Sprintf("cslow%d@example.com", i)))
			storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Fast", fmt.Sprintf("cfast%d@example.com", i)))
		}
		startDispatcher(t, s, jobs.DispatcherConfig{Concurrency: 8, Timeout: 10 * time.Second, Lease: 30 * time.Second})
		fast.Wait(t, 3, 10*time.Second)
		time.Sleep(200 * time.Millisecond)
		if p := peak.Load(); p != jobs.DefaultCompanyConcurrency {
			t.Fatalf("company A's endpoints had %d requests at once, want %d", p, jobs.DefaultCompanyConcurrency)
		}
		close(release)
		slow.Wait(t, 18, 20*time.Second)
		waitDelivered(t, s, 20*time.Second)
		if p := peak.Load(); p > jobs.DefaultCompanyConcurrency {
			t.Fatalf("company A's endpoints had %d requests at once", p)
		}
	})
}

// A dispatcher that claims and records in batches (sixteen slots, ten
// endpoints of five companies) sends every delivery once and records one
// attempt for each.
func TestWebhookBatchesDeliverOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		var mu sync.Mutex
		seen := map[string]int{} // event id and endpoint
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, got *storetest.Received, _ int) {
			mu.Lock()
			seen[got.ID+" "+r.URL.RawQuery]++
			mu.Unlock()
			w.WriteHeader(http.StatusOK)
		})
		var companies []int64
		for i := range 5 {
			c, err := s.CreateCompany(ctx, fmt.Sprintf("Batch %d", i), "UTC")
			if err != nil {
				t.Fatal(err)
			}
			storetest.MustTrainer(t, s, c.ID, "Coach", fmt.Sprintf("coach%d@batch.example", i))
			companies = append(companies, c.ID)
			for j := range 2 {
				storetest.AddWebhook(t, s, c.ID, fmt.Sprintf("%s?c=%d&e=%d", rc.URL, i, j))
			}
		}
		const n = 100
		for i := range n {
			storetest.MustCreate(t, s, companies[i%5], storetest.NewTrainee("Batch", fmt.Sprintf("batch%d@example.com", i)))
		}
		startDispatcher(t, s, jobs.DispatcherConfig{Concurrency: 16})
		rc.Wait(t, 2*n, 30*time.Second)
		waitDelivered(t, s, 10*time.Second)
		time.Sleep(100 * time.Millisecond) // room for a second send, if one were made
		mu.Lock()
		defer mu.Unlock()
		if got := len(rc.Received()); got != 2*n || len(seen) != 2*n {
			t.Fatalf("%d requests of %d deliveries, want %d", got, len(seen), 2*n)
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("%s sent %d times", k, c)
			}
		}
		if k := storetest.Count(t, s, "webhook_attempts", "1 = 1"); k != 2*n {
			t.Errorf("%d attempts recorded, want %d", k, 2*n)
		}
		if k := storetest.Count(t, s, "webhook_deliveries", "status = ? AND attempts = 1", api.DeliverySucceeded); k != 2*n {
			t.Errorf("%d deliveries succeeded at the first attempt, want %d", k, 2*n)
		}
	})
}

// A slot claims a chain of one endpoint's due deliveries and sends them one
// after another, never more than the endpoint's bound at once; Shutdown
// lets the attempt in flight finish and gives the chain's unsent
// deliveries back at once (not leased, no attempt counted), and the next
// dispatcher sends them.
func TestWebhookChainShutdownGivesBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		var inflight, peak atomic.Int32
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(100 * time.Millisecond)
			w.WriteHeader(http.StatusOK)
		})
		hook, _ := storetest.AddWebhook(t, s, tn.A, rc.URL)
		const n = 10
		for i := range n {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Chain", fmt.Sprintf("chain%d@example.com", i)))
		}
		d, err := jobs.NewDispatcher(s, fast(jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), Chain: n}))
		if err != nil {
			t.Fatal(err)
		}
		d.Start()
		rc.Wait(t, 3, 10*time.Second)
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := d.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
		sent := len(rc.Received())
		if sent >= n {
			t.Fatalf("%d sent before the shutdown took effect; the test needs some left", sent)
		}
		if k := storetest.Count(t, s, "webhook_attempts", "delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)", hook); k != sent {
			t.Fatalf("%d attempts recorded of %d sent", k, sent)
		}
		if k := storetest.Count(t, s, "webhook_deliveries", "status = ? AND attempts = 0 AND lease IS NULL AND locked_until IS NULL", api.DeliveryPending); k != n-sent {
			t.Fatalf("%d deliveries given back, want the %d unsent", k, n-sent)
		}
		if p := peak.Load(); p > jobs.DefaultEndpointConcurrency {
			t.Fatalf("%d requests at once to one endpoint", p)
		}
		startDispatcher(t, s, jobs.DispatcherConfig{Chain: n})
		rc.Wait(t, n, 10*time.Second)
		waitDelivered(t, s, 10*time.Second)
		if k := storetest.Count(t, s, "webhook_attempts", "1 = 1"); k != n {
			t.Fatalf("%d attempts, want %d", k, n)
		}
	})
}

// A chain stops soon after its endpoint is deleted: once a cycle finds one
// of its deliveries gone, it sends no more of them.
func TestWebhookChainStopsWhenEndpointDeleted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			time.Sleep(50 * time.Millisecond)
			w.WriteHeader(http.StatusOK)
		})
		hook, _ := storetest.AddWebhook(t, s, tn.A, rc.URL)
		const n = 30
		for i := range n {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Gone", fmt.Sprintf("gone%d@example.com", i)))
		}
		startDispatcher(t, s, jobs.DispatcherConfig{Chain: n})
		rc.Wait(t, 4, 10*time.Second)
		if err := s.DeleteWebhook(ctx, hook); err != nil {
			t.Fatal(err)
		}
		at := rc.Count()
		time.Sleep(500 * time.Millisecond) // ten more requests per chain, if the chains went on
		// Per chain: the request in flight, and one sent before the
		// cycle recorded it as lost.
		if got := rc.Count(); got > at+4 {
			t.Fatalf("%d requests after the endpoint was deleted (%d before)", got-at, at)
		}
	})
}

// A chain sends to the endpoint as its claim read it; ChainWindow bounds
// how long: once the URL changes, the old receiver gets at most each
// chain's attempts of one window (and the one in flight), and the rest go
// to the new URL.
func TestWebhookChainRereadsAChangedEndpoint(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		slow := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			time.Sleep(100 * time.Millisecond)
			w.WriteHeader(http.StatusOK)
		})
		moved := storetest.NewReceiver(t, nil)
		hook, _ := storetest.AddWebhook(t, s, tn.A, slow.URL)
		const n = 30
		for i := range n {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Moved", fmt.Sprintf("moved%d@example.com", i)))
		}
		startDispatcher(t, s, jobs.DispatcherConfig{Chain: n, ChainWindow: 300 * time.Millisecond})
		slow.Wait(t, 2, 10*time.Second)
		url := moved.URL
		if _, err := s.UpdateWebhook(ctx, tn.A, hook, api.WebhookPatch{URL: &url}); err != nil {
			t.Fatal(err)
		}
		at := slow.Count()
		moved.Wait(t, 1, 10*time.Second)
		// Two chains (the endpoint's cap), each at most three more
		// attempts of its window and the one in flight.
		if got := slow.Count(); got > at+8 {
			t.Fatalf("the old URL got %d requests after the change (%d before)", got-at, at)
		}
		// Everything arrives, the rest at the new URL.
		moved.Wait(t, n-slow.Count(), 10*time.Second)
	})
}
