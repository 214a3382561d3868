package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A cycle records a batch of attempts as FinishDelivery records each (the
// new state, the next attempt, the attempt row byte for byte, a response
// full of quotes, backslashes, braces and commas included), skips the one
// whose lease was lost without failing the others, and claims in the same
// transaction with the leases it gave back free again: the per-endpoint
// bound counts them gone.
func TestCycleDeliveriesBatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		hook, _ := storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/hook")
		for i := range 5 {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Batch", fmt.Sprintf("batch%d@example.com", i)))
		}
		lim := store.ClaimLimits{PerEndpoint: 3, PerCompany: 4}
		first, err := s.ClaimDeliveries(ctx, 10, lim, time.Minute)
		if err != nil || len(first) != 3 {
			t.Fatalf("claim: %d claimed, %v; want the endpoint's 3", len(first), err)
		}
		if again, err := s.ClaimDeliveries(ctx, 10, lim, time.Minute); err != nil || len(again) != 0 {
			t.Fatalf("claimed %d more past the endpoint's bound (%v)", len(again), err)
		}
		started := time.Now().UTC().Truncate(time.Microsecond)
		odd := `{"a":"b,c"} \ "quoted" 'single' NULL {} ,`
		done := []*store.FinishedAttempt{
			{Delivery: first[0], Result: store.DeliveryAttempt{Started: started, StatusCode: 200, Body: odd, Latency: 1500 * time.Microsecond}},
			{Delivery: first[1], Result: store.DeliveryAttempt{Started: started, StatusCode: 500, Body: "no", Err: "status 500", Latency: time.Millisecond}},
			{Delivery: first[2], Result: store.DeliveryAttempt{Started: started, Err: "timeout: no complete response within 10s"}},
		}
		// Deleted meanwhile: its finish must not fail the others.
		if _, err := storetest.DB(t, s).NewRaw("UPDATE webhook_deliveries SET lease = 'other' WHERE id = ?", first[2].DeliveryID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		schedule := []time.Duration{time.Hour}
		next, err := s.CycleDeliveries(ctx, done, nil, schedule, 10, lim, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if done[0].State != api.DeliverySucceeded || done[0].Err != nil || done[1].State != api.DeliveryPending || done[1].Err != nil {
			t.Fatalf("states %q %v, %q %v", done[0].State, done[0].Err, done[1].State, done[1].Err)
		}
		if done[2].Err != store.ErrLeaseLost {
			t.Fatalf("a lost lease gave %q %v", done[2].State, done[2].Err)
		}
		// Two leases came back, one is held by "other": two more fit.
		if len(next) != 2 || next[0].DeliveryID != first[2].DeliveryID+1 || next[1].DeliveryID != first[2].DeliveryID+2 {
			t.Fatalf("claimed %d in the cycle, want the two oldest left", len(next))
		}
		as := attempts(t, s, hook)
		byDelivery := map[int64]*api.WebhookAttempt{}
		for _, a := range as {
			if a.Attempt > 0 {
				byDelivery[a.DeliveryID] = a
			}
		}
		if len(byDelivery) != 2 {
			t.Fatalf("%d attempts recorded, want 2", len(byDelivery))
		}
		ok, failed := byDelivery[first[0].DeliveryID], byDelivery[first[1].DeliveryID]
		if ok == nil || *ok.Response != odd || *ok.StatusCode != 200 || ok.Error != nil || *ok.LatencyMs != 1.5 || !ok.Time.Equal(started) {
			t.Fatalf("the succeeded attempt: %+v", ok)
		}
		if failed == nil || *failed.Error != "status 500" || failed.State != api.DeliveryPending || failed.NextAttemptAt == nil ||
			failed.NextAttemptAt.Sub(started) < 59*time.Minute {
			t.Fatalf("the failed attempt: %+v", failed)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "id = ? AND attempts = 0 AND lease = 'other'", first[2].DeliveryID); n != 1 {
			t.Fatal("the delivery whose lease was lost changed")
		}
	})
}

// A claim in chains leases up to Chain due deliveries of one endpoint
// under one lease, oldest first; the per-endpoint and per-company bounds
// count chains, not deliveries; a chain's unsent deliveries given back in
// a cycle are free again, and the chain's slot with them once none of its
// deliveries is leased.
func TestCycleDeliveriesChains(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/a")
		storetest.AddWebhook(t, s, tn.B, "http://127.0.0.1:9/b")
		for i := range 8 {
			storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Chain", fmt.Sprintf("chain%d@example.com", i)))
		}
		storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Other", "other@example.com"))
		lim := store.ClaimLimits{PerEndpoint: 2, PerCompany: 4, Chain: 3}
		first, err := s.ClaimDeliveries(ctx, 10, lim, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		chains := map[string][]int64{}
		var order []int64
		for _, c := range first {
			chains[c.Lease()] = append(chains[c.Lease()], c.DeliveryID)
			order = append(order, c.DeliveryID)
		}
		// A's two chains of three, B's one of one.
		if len(first) != 7 || len(chains) != 3 || !slices.IsSorted(order) {
			t.Fatalf("claimed %v in %d chains, want 7 in 3, oldest first", order, len(chains))
		}
		for l, ids := range chains {
			if len(ids) != 3 && len(ids) != 1 {
				t.Fatalf("chain %s: %v", l, ids)
			}
		}
		if again, err := s.ClaimDeliveries(ctx, 10, lim, time.Minute); err != nil || len(again) != 0 {
			t.Fatalf("claimed %d past the bounds (%v)", len(again), err)
		}
		// A's first chain: one sent, two given back. Its lease still holds
		// nothing then, so A has a free slot again, and the two are due.
		chain := chains[first[0].Lease()]
		var byID = map[int64]*store.ClaimedDelivery{}
		for _, c := range first {
			byID[c.DeliveryID] = c
		}
		done := []*store.FinishedAttempt{{Delivery: byID[chain[0]], Result: store.DeliveryAttempt{Started: time.Now(), StatusCode: 200}}}
		next, err := s.CycleDeliveries(ctx, done, []*store.ClaimedDelivery{byID[chain[1]], byID[chain[2]]}, nil, 10, lim, time.Minute)
		if err != nil || done[0].State != api.DeliverySucceeded {
			t.Fatalf("cycle: %v, state %q", err, done[0].State)
		}
		if len(next) != 3 || next[0].DeliveryID != chain[1] || next[1].DeliveryID != chain[2] ||
			next[0].Lease() != next[2].Lease() || next[0].Lease() == first[0].Lease() {
			t.Fatalf("after giving back %v: claimed %d in a new chain, want the two given back and the next", chain[1:], len(next))
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "lease IS NOT NULL"); n != 7 {
			t.Fatalf("%d deliveries leased, want 7 (A: 3 and 3, B: 1)", n)
		}
	})
}

func attempts(t *testing.T, s *store.Store, hook int64) []*api.WebhookAttempt {
	t.Helper()
	as, err := s.WebhookAttempts(ctx, hook, 100)
	if err != nil {
		t.Fatal(err)
	}
	return as
}
