package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Events record who made them: the key in the context (api.WithActor) of
// a create and an update; the automation for its DISABLE_TRAINEE's delete
// and its automation.fired; the system for the evaluator's
// trainee.expired (whatever the caller's context) and for a change without
// an actor. The feed reads the names of the company's own keys and
// automations only, and null for an event written before actors were.
func TestEventsRecordTheirActor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tn := storetest.SetupTenants(t, s)
		now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		store.SetNow(s, func() time.Time { return now })
		newKey := func(company int64, name string) *api.APIKey {
			k := api.GenerateKey()
			key, err := s.CreateKey(ctx, company, name, api.HashKey(k), api.KeyDisplayPrefix(k))
			if err != nil {
				t.Fatal(err)
			}
			return key
		}
		anna, ben, other := newKey(tn.A, "coach-anna"), newKey(tn.A, "coach-ben"), newKey(tn.B, "beta-key")
		byAnna := api.WithActor(ctx, api.Actor{Type: api.ActorKey, ID: anna.ID})
		byBen := api.WithActor(ctx, api.Actor{Type: api.ActorKey, ID: ben.ID})

		today := api.DateOf(now)
		nt := storetest.NewTrainee("Ada Park", "ada@actor.example")
		nt.ExpirationDate = &today
		ada, err := s.CreateTrainee(byAnna, tn.A, nt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateTrainee(byBen, tn.A, ada.ID, api.TraineePatch{Name: api.Val("Ada Lovelace")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateAutomation(ctx, tn.A, api.AutomationSpec{Name: "Notify CRM", Enabled: true,
			TriggerType: api.TriggerTraineeUpdated, ActionType: api.ActionWebhook, URL: ptr("http://127.0.0.1:9/crm")}, api.GenerateWebhookSecret(), 0); err != nil {
			t.Fatal(err)
		}
		archive, err := s.CreateAutomation(ctx, tn.A, api.AutomationSpec{Name: "Archive on update", Enabled: true,
			TriggerType: api.TriggerTraineeUpdated, ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateTrainee(byBen, tn.A, ada.ID, api.TraineePatch{Name: api.Val("Ada King")}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.RecordExpirations(byAnna, tn.A, now, 10); err != nil || n != 0 {
			// Ada is soft-deleted: nothing expires. A live one does.
			t.Fatalf("expirations of a deleted trainee: %d, %v", n, err)
		}
		bo := storetest.NewTrainee("Bo Expiring", "bo@actor.example")
		bo.ExpirationDate = &today
		if _, err := s.CreateTrainee(ctx, tn.A, bo); err != nil { // no actor: the system
			t.Fatal(err)
		}
		if n, err := s.RecordExpirations(byAnna, tn.A, now, 10); err != nil || n != 1 {
			t.Fatalf("expirations: %d, %v", n, err)
		}
		// A key of another company is never named in A's feed.
		forged := api.WithActor(ctx, api.Actor{Type: api.ActorKey, ID: other.ID})
		if _, err := s.CreateTrainee(forged, tn.A, storetest.NewTrainee("Cy Forged", "cy@actor.example")); err != nil {
			t.Fatal(err)
		}

		evs, err := s.Events(ctx, tn.A, api.EventQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		key := func(k *api.APIKey) *api.Actor { return &api.Actor{Type: api.ActorKey, ID: k.ID, Name: k.Name} }
		system := &api.Actor{Type: api.ActorSystem}
		want := []struct {
			typ   string
			actor *api.Actor
		}{
			{api.EventTraineeCreated, key(anna)},
			{api.EventTraineeUpdated, key(ben)},
			{api.EventTraineeUpdated, key(ben)},
			{api.EventTraineeDeleted, &api.Actor{Type: api.ActorAutomation, ID: archive.ID, Name: "Archive on update"}},
			{api.EventTraineeCreated, system},
			{api.EventTraineeExpired, system},
			{api.EventTraineeCreated, &api.Actor{Type: api.ActorKey, ID: other.ID}},
		}
		if len(evs) != len(want) {
			for _, e := range evs {
				t.Logf("%s by %+v", e.Type, e.Actor)
			}
			t.Fatalf("%d events, want %d", len(evs), len(want))
		}
		for i, w := range want {
			if evs[i].Type != w.typ || evs[i].Actor == nil || *evs[i].Actor != *w.actor {
				t.Errorf("event %d: %s by %+v, want %s by %+v", i, evs[i].Type, evs[i].Actor, w.typ, w.actor)
			}
		}

		// The automation.fired of the WEBHOOK automation is the automation's.
		all, err := store.EventActors(s, tn.A)
		if err != nil {
			t.Fatal(err)
		}
		fired := 0
		for _, e := range all {
			if e.Type == api.EventAutomationFired {
				fired++
				if e.ActorType == nil || *e.ActorType != api.ActorAutomation || e.ActorID == nil || *e.ActorID == archive.ID {
					t.Errorf("automation.fired by %v %v, want the WEBHOOK automation", e.ActorType, e.ActorID)
				}
			}
		}
		if fired == 0 {
			t.Error("no automation.fired event")
		}

		// An event written before the actors were recorded: null.
		if err := store.ForgetActor(s, evs[0].ID); err != nil {
			t.Fatal(err)
		}
		evs, err = s.Events(ctx, tn.A, api.EventQuery{Limit: 1})
		if err != nil || len(evs) != 1 || evs[0].Actor != nil {
			t.Fatalf("an event without its actor: %+v, %v", evs, err)
		}
	})
}
