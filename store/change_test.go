package store_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A create runs as one batch whose event takes the ids the rows before it
// were given (keyOf, eventBody): a trainee created without a trainer
// gets the company's first active one, and its trainee.created event
// carries the trainee exactly as it was returned, trainer and ids
// included; the DISABLE_TRAINEE verdict's second change records
// trainee.deleted of the same trainee, disabled, and a subscribed
// endpoint has a delivery of each.
func TestCreateBatchEventCarriesTheIDs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s)
		storetest.AddWebhook(t, s, ten.A, "https://hooks.example.com/batch", api.EventTraineeCreated, api.EventTraineeDeleted)
		created := storetest.MustCreate(t, s, ten.A, storetest.NewTrainee("Batch Person", "batch@example.com"))
		if created.TrainerID == nil || *created.TrainerID != ten.TrainerA || created.ID == 0 || created.UserID == 0 {
			t.Fatalf("created: %+v", created)
		}
		if _, err := s.CreateAutomation(ctx, ten.A, api.AutomationSpec{Name: "off at once", Enabled: true,
			TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0); err != nil {
			t.Fatal(err)
		}
		disabled := storetest.MustCreate(t, s, ten.A, storetest.NewTrainee("Batch Gone", "gone@example.com"))
		if disabled.Enabled || disabled.TrainerID == nil || *disabled.TrainerID != ten.TrainerA {
			t.Fatalf("created under the automation: %+v", disabled)
		}

		evs, err := s.Events(ctx, ten.A, api.EventQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []api.WebhookEvent
		for _, e := range evs {
			var w api.WebhookEvent
			if err := json.Unmarshal(e.Payload, &w); err != nil || w.Type != e.Type {
				t.Fatalf("event %s: %s (%v)", e.Type, e.Payload, err)
			}
			got = append(got, w)
		}
		if len(got) != 3 || got[0].Type != api.EventTraineeCreated || got[1].Type != api.EventTraineeCreated || got[2].Type != api.EventTraineeDeleted {
			t.Fatalf("events: %+v", got)
		}
		if !reflect.DeepEqual(got[0].Data.Trainee, created) {
			t.Errorf("trainee.created carries\n%+v\nthe create returned\n%+v", got[0].Data.Trainee, created)
		}
		if !slices.Contains(got[0].Data.ChangedFields, "trainerId") {
			t.Errorf("trainee.created's fields %v lack trainerId", got[0].Data.ChangedFields)
		}
		enabled := *disabled
		enabled.Enabled = true
		if !reflect.DeepEqual(got[1].Data.Trainee, &enabled) {
			t.Errorf("the second trainee.created carries\n%+v\nwant\n%+v", got[1].Data.Trainee, &enabled)
		}
		if !reflect.DeepEqual(got[2].Data.Trainee, disabled) || !slices.Equal(got[2].Data.ChangedFields, []string{"enabled"}) {
			t.Errorf("trainee.deleted carries %+v %v, want %+v", got[2].Data.Trainee, got[2].Data.ChangedFields, disabled)
		}
		for _, e := range evs {
			if n := storetest.Count(t, s, "webhook_deliveries", "event_id = (SELECT id FROM webhook_events WHERE public_id = ?)", e.ID); n != 1 {
				t.Errorf("%s %s: %d deliveries, want 1", e.Type, e.ID, n)
			}
		}
	})
}
