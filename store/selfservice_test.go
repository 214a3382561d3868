package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// The feed is a stable cursor under concurrent writers: a reader that
// follows it while 8 writers commit 200 changes, and a reader that reads
// it all at the end, see the same events, each once, in the same order.
// On PostgreSQL ids are taken in commit order (recordEvent's per-company
// lock), so no event appears behind a cursor already handed out.
func TestEventFeedUnderConcurrentWriters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tn := storetest.SetupTenants(t, s)
		const writers, each = 8, 25
		var wg sync.WaitGroup
		done := make(chan struct{})
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := s.CreateTrainee(ctx, tn.A, storetest.NewTrainee("Feed Writer", fmt.Sprintf("w%d.%d@example.com", w, i))); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		go func() { wg.Wait(); close(done) }()

		var followed []string
		seen := map[string]bool{}
		after := ""
		follow := func() {
			evs, err := s.Events(ctx, tn.A, api.EventQuery{After: after, Limit: 7})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				if seen[e.ID] {
					t.Fatalf("event %s twice", e.ID)
				}
				seen[e.ID] = true
				followed = append(followed, e.ID)
				after = e.ID
			}
		}
	loop:
		for {
			select {
			case <-done:
				break loop
			default:
				follow()
			}
		}
		for range 100 { // drain what committed last
			follow()
		}
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		all, err := s.Events(ctx, tn.A, api.EventQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != writers*each || len(followed) != len(all) {
			t.Fatalf("followed %d events, the feed holds %d, %d were committed", len(followed), len(all), writers*each)
		}
		for i, e := range all {
			if followed[i] != e.ID {
				t.Fatalf("event %d: followed %s, the feed says %s", i, followed[i], e.ID)
			}
		}
		// Company B's feed is empty; A's cursor is no cursor of B's.
		if evs, err := s.Events(ctx, tn.B, api.EventQuery{Limit: 10}); err != nil || len(evs) != 0 {
			t.Fatalf("company B's feed: %d events, %v", len(evs), err)
		}
		if _, err := s.Events(ctx, tn.B, api.EventQuery{After: all[0].ID, Limit: 10}); err == nil {
			t.Fatal("company A's cursor works for company B")
		}
	})
}

// A key's scope is stored and authenticated; an unknown scope is refused.
func TestKeyScope(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tn := storetest.SetupTenants(t, s)
		k := api.GenerateKey()
		if _, err := s.CreateScopedKey(ctx, tn.A, "reader", api.KeyScopeRead, api.HashKey(k), api.KeyDisplayPrefix(k)); err != nil {
			t.Fatal(err)
		}
		p, err := s.Authenticate(ctx, api.HashKey(k))
		if err != nil || p.Scope != api.KeyScopeRead {
			t.Fatalf("authenticate: %+v %v", p, err)
		}
		cur, err := s.CurrentKey(ctx, tn.A, p.KeyID)
		if err != nil || cur.Scope != api.KeyScopeRead || cur.CompanyName != "Alpha Gym" || cur.Name != "reader" {
			t.Fatalf("current key %+v %v", cur, err)
		}
		if _, err := s.CurrentKey(ctx, tn.B, p.KeyID); err == nil {
			t.Fatal("company B reads company A's key")
		}
		full := api.GenerateKey()
		if _, err := s.CreateKey(ctx, tn.A, "full", api.HashKey(full), api.KeyDisplayPrefix(full)); err != nil {
			t.Fatal(err)
		}
		if p, err := s.Authenticate(ctx, api.HashKey(full)); err != nil || p.Scope != api.KeyScopeFull {
			t.Fatalf("a key's default scope: %+v %v", p, err)
		}
		bad := api.GenerateKey()
		if _, err := s.CreateScopedKey(ctx, tn.A, "x", "write", api.HashKey(bad), api.KeyDisplayPrefix(bad)); err == nil {
			t.Fatal("scope write accepted")
		}
	})
}
