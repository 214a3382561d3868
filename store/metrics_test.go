package store_test

import (
	"testing"
	"time"

	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestOutboxStatsAndPoolStats(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		st, err := s.OutboxStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending != 0 || !st.OldestPending.IsZero() {
			t.Fatalf("empty outbox: %+v", st)
		}
		tn := storetest.SetupTenants(t, s)
		storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/all")
		before := time.Now().Add(-time.Minute)
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Xena Cole", "xena@example.com"))
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Yuri Moss", "yuri@example.com"))
		storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Bea", "bea.trainee@example.com")) // no endpoint: nothing pending
		st, err = s.OutboxStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending != 2 {
			t.Errorf("pending = %d, want 2", st.Pending)
		}
		if st.OldestPending.Before(before) || st.OldestPending.After(time.Now().Add(time.Minute)) {
			t.Errorf("oldest pending = %v, want about now", st.OldestPending)
		}
		if ps := s.PoolStats(); ps.OpenConnections < 1 || ps.MaxOpenConnections < 1 {
			t.Errorf("pool stats %+v", ps)
		}
	})
}
