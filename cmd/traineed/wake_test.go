package main

import (
	"context"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// `traineed serve` on PostgreSQL listens for the other instances' changes:
// a trainee created by another process (this test's store) is delivered
// by the server, whose --webhook-poll-interval is an hour.
func TestServeWakeListen(t *testing.T) {
	db := storetest.PostgresURL(t)
	s := storetest.Open(t, db)
	ctx := context.Background()
	co, err := s.CreateCompany(ctx, "Shared", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s, co.ID, "Coach", "coach@shared.example")
	rc := storetest.NewReceiver(t, nil)
	storetest.AddWebhook(t, s, co.ID, rc.URL)
	_, cmd, logs := startServer(t, db, "--webhook-poll-interval", "1h", "--webhook-allow", "127.0.0.0/8")
	raw := storetest.DB(t, s)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		must(t, raw.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN traineed_wake'").Scan(ctx, &n))
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections listening 30 s after the start, want 1", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := 1; i <= 2; i++ {
		storetest.MustCreate(t, s, co.ID, storetest.NewTrainee("Ada Park", "ada"+string(rune('0'+i))+"@example.com"))
		if got := rc.Wait(t, i, 30*time.Second); got[i-1].Event.Type != api.EventTraineeCreated {
			t.Fatalf("delivery %d: %s", i, got[i-1].Body)
		}
	}
	stop(t, cmd, logs)
}
