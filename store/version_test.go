package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestTraineeVersion: every write of a trainee's row bumps its version
// (an update, a delete, a restore, a workout that moves lastTrained), a
// write that changes nothing does not, and UpdateTraineeIf changes
// nothing on a version that does not match.
func TestTraineeVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		store.SetNow(s, func() time.Time { return trackedNow })
		tn := storetest.SetupTenants(t, s)
		a := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Ver Sion", "ver.sion@example.com"))
		version := func() int64 {
			t.Helper()
			_, v, err := s.TraineeVersion(ctx, tn.A, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		if v := version(); v != 1 {
			t.Fatalf("new trainee: version %d", v)
		}
		at := func(v int64) *api.IfMatch { return &api.IfMatch{Versions: []int64{v}} }
		if _, v, err := s.UpdateTraineeIf(ctx, tn.A, a.ID, at(1), api.TraineePatch{Name: api.Val("Ver Two")}); err != nil || v != 2 {
			t.Fatalf("update: %d %v", v, err)
		}
		if _, _, err := s.UpdateTraineeIf(ctx, tn.A, a.ID, at(1), api.TraineePatch{Name: api.Val("Stale")}); !errors.Is(err, api.ErrPreconditionFailed) {
			t.Fatalf("stale: %v", err)
		}
		if got := storetest.MustGet(t, s, tn.A, a.ID); got.Name != "Ver Two" || version() != 2 {
			t.Fatalf("a stale update changed %+v", got)
		}
		if _, v, err := s.UpdateTraineeIf(ctx, tn.A, a.ID, at(2), api.TraineePatch{Name: api.Val("Ver Two")}); err != nil || v != 2 {
			t.Fatalf("no-op update: %d %v", v, err)
		}
		for i, p := range []api.TraineePatch{{Enabled: api.Val(false)}, {Enabled: api.Val(true)}} {
			if _, v, err := s.UpdateTraineeIf(ctx, tn.A, a.ID, nil, p); err != nil || v != int64(3+i) {
				t.Fatalf("delete/restore %d: %d %v", i, v, err)
			}
		}
		ingestString(t, s, tn.A, fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"10-11-2026"}`, a.ID))
		if v := version(); v != 5 {
			t.Fatalf("after a workout: version %d", v)
		}
		ingestString(t, s, tn.A, fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"09-11-2026"}`, a.ID))
		if v := version(); v != 5 {
			t.Fatalf("an older workout (lastTrained unchanged) moved the version to %d", v)
		}
		if _, _, err := s.UpdateTraineeIf(ctx, tn.B, a.ID, at(5), api.TraineePatch{Name: api.Val("X")}); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("another company: %v", err)
		}
	})
}
