package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A change that fails, or changes nothing, records no event; one that
// commits records exactly one, with a delivery per subscribed endpoint.
func TestWebhookOutboxFollowsTheTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		hookAll, _ := storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/all")
		hookDel, _ := storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/deleted", api.EventTraineeDeleted)
		events := func() int { return storetest.Count(t, s, "webhook_events", "1 = 1") }

		x := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Xena Cole", "xena@example.com"))
		y := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Yuri Moss", "yuri@example.com"))
		if n := events(); n != 2 {
			t.Fatalf("%d events after two creates", n)
		}
		_, err := s.UpdateTrainee(ctx, tn.A, x.ID, api.TraineePatch{Name: api.Val("Xena C"), Email: api.Val(y.Email)})
		wantConflict(t, err, "email")
		_, err = s.CreateTrainee(ctx, tn.A, storetest.NewTrainee("Dup", x.Email))
		wantConflict(t, err, "email")
		_, err = s.UpdateTrainee(ctx, tn.A, x.ID, api.TraineePatch{Name: api.Val("Xena C"), TrainerID: api.Val(tn.TrainerB)})
		wantCode(t, err, api.CodeUnknownTrainer, "trainerId")
		_, err = s.UpdateTrainee(ctx, tn.B, x.ID, api.TraineePatch{Name: api.Val("Not B's")})
		if !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("other company's update: %v", err)
		}
		if _, err := s.UpdateTrainee(ctx, tn.A, x.ID, api.TraineePatch{Name: api.Val("Xena Cole"), WeightUnit: api.Val(api.UnitKG)}); err != nil {
			t.Fatal(err)
		}
		if n := events(); n != 2 {
			t.Fatalf("%d events after refused and no-op changes, want 2", n)
		}
		if _, err := s.UpdateTrainee(ctx, tn.A, x.ID, api.TraineePatch{Enabled: api.Val(false)}); err != nil {
			t.Fatal(err)
		}
		if n := events(); n != 3 {
			t.Fatalf("%d events after a delete, want 3", n)
		}
		// Two creates went to one endpoint, the delete to both.
		if n := storetest.Count(t, s, "webhook_deliveries", "webhook_id = ?", hookAll); n != 3 {
			t.Errorf("%d deliveries to the all-events endpoint, want 3", n)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "webhook_id = ?", hookDel); n != 1 {
			t.Errorf("%d deliveries to the deleted-only endpoint, want 1", n)
		}
		// Company B has no endpoint: its event is recorded, nothing is due.
		storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Bea", "bea.trainee@example.com"))
		if n := events(); n != 4 {
			t.Fatalf("%d events, want 4", n)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "1 = 1"); n != 4 {
			t.Errorf("%d deliveries, want 4", n)
		}
		// A transaction that fails after the event was written takes it
		// with it.
		if err := store.CreateTraineeThenFail(s, tn.A, storetest.NewTrainee("Ghost", "ghost@example.com")); err == nil || !strings.Contains(err.Error(), "fail after") {
			t.Fatalf("failing transaction: %v", err)
		}
		if n := events(); n != 4 {
			t.Fatalf("%d events after a rolled-back create, want 4", n)
		}
		if n := storetest.Count(t, s, "webhook_deliveries", "1 = 1"); n != 4 {
			t.Errorf("%d deliveries after a rolled-back create, want 4", n)
		}
	})
}
