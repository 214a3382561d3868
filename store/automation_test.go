package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A deleted automation's runs stay readable for api.RunRetention, then
// are gone from reads and pruned; an automation of another company is
// not found, its runs included.
func TestAutomationRunRetention(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s)
		now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		store.SetNow(s, func() time.Time { return now })
		a, err := s.CreateAutomation(ctx, ten.A, api.AutomationSpec{Name: "created", Enabled: true,
			TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0)
		if err != nil {
			t.Fatal(err)
		}
		tr := storetest.MustCreate(t, s, ten.A, storetest.NewTrainee("Gone Soon", "gone@retention.example"))
		if storetest.MustGet(t, s, ten.A, tr.ID).Enabled {
			t.Fatal("TRAINEE_CREATED with DISABLE_TRAINEE did not soft-delete")
		}
		if _, err := s.AutomationRuns(ctx, ten.B, a.ID, api.ListQuery{Limit: 10}); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("another company's runs: %v", err)
		}
		if _, err := s.DeleteAutomation(ctx, ten.B, a.ID); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("another company's delete: %v", err)
		}
		if _, err := s.DeleteAutomation(ctx, ten.A, a.ID); err != nil {
			t.Fatal(err)
		}
		now = now.Add(api.RunRetention - time.Minute)
		runs, err := s.AutomationRuns(ctx, ten.A, a.ID, api.ListQuery{Limit: 10})
		if err != nil || runs.Total != 1 || len(runs.Rows) != 1 || runs.More || runs.Rows[0].Outcome != api.OutcomeDisabled {
			t.Fatalf("runs before the retention ends: %+v %v", runs, err)
		}
		if n, err := s.PruneAutomationRuns(ctx, now.Add(-api.RunRetention)); err != nil || n != 0 {
			t.Fatalf("pruned %d early: %v", n, err)
		}
		now = now.Add(2 * time.Minute)
		if _, err := s.AutomationRuns(ctx, ten.A, a.ID, api.ListQuery{Limit: 10}); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("runs after the retention: %v", err)
		}
		if n, err := s.PruneAutomationRuns(ctx, now.Add(-api.RunRetention)); err != nil || n != 1 {
			t.Fatalf("pruned %d: %v", n, err)
		}
	})
}

// DISABLE_TRAINEE is a verdict the trainee code applies once: with two
// such automations on TRAINEE_CREATED and one on TRAINEE_DELETED, a create
// is followed by one soft delete in the same transaction; the first run
// disables, the others find the trainee disabled and are skipped, and the
// feed holds the create then the delete.
func TestDisableVerdictsApplyOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s)
		var ids []int64
		for _, trig := range []string{api.TriggerTraineeCreated, api.TriggerTraineeCreated, api.TriggerTraineeDeleted} {
			a, err := s.CreateAutomation(ctx, ten.A, api.AutomationSpec{Name: "off " + trig, Enabled: true,
				TriggerType: trig, ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		tr := storetest.MustCreate(t, s, ten.A, storetest.NewTrainee("Twice Off", "twice@verdict.example"))
		if tr.Enabled || storetest.MustGet(t, s, ten.A, tr.ID).Enabled {
			t.Fatalf("create answered enabled=%v; want the stored, disabled trainee", tr.Enabled)
		}
		var outcomes []string
		for _, id := range ids {
			runs, err := s.AutomationRuns(ctx, ten.A, id, api.ListQuery{Limit: 10})
			if err != nil || len(runs.Rows) != 1 {
				t.Fatalf("runs of %d: %+v %v", id, runs, err)
			}
			outcomes = append(outcomes, runs.Rows[0].Outcome)
		}
		want := []string{api.OutcomeDisabled, api.OutcomeSkipped, api.OutcomeSkipped}
		if !slices.Equal(outcomes, want) {
			t.Fatalf("outcomes %v, want %v", outcomes, want)
		}
		evs, err := s.Events(ctx, ten.A, api.EventQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if !slices.Equal(types, []string{api.EventTraineeCreated, api.EventTraineeDeleted}) {
			t.Fatalf("feed %v: want one create then one delete", types)
		}
	})
}
