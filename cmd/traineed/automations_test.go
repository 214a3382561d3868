package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Two `traineed serve` instances on one PostgreSQL evaluate a TRAINEE_EXPIRED
// WEBHOOK automation over 1,000 trainees whose program ends today, one of
// them killed with SIGKILL in the middle of the evaluation: every
// occurrence fires exactly once (one run, one automation.fired event, one
// trainee.expired event per trainee), and the deliveries reach the
// receiver.
func TestAutomationsTwoInstancesKill(t *testing.T) {
	db := storetest.PostgresURL(t)
	ctx := context.Background()
	s := storetest.Open(t, db)
	co, err := s.CreateCompany(ctx, "Kill Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s, co.ID, "Coach", "coach@kill.example")
	today := api.Today(time.Now(), time.UTC)
	const n = 1000
	must(t, s.Load(ctx, func(ctx context.Context, l *store.Loader) error {
		for i := range n {
			nt := storetest.NewTrainee(fmt.Sprintf("Ending %d", i), fmt.Sprintf("ending%d@kill.example", i))
			nt.ExpirationDate = &today
			if _, err := l.CreateTrainee(ctx, co.ID, nt, false); err != nil {
				return err
			}
		}
		return nil
	}))
	rc := storetest.NewReceiver(t, nil)
	url := rc.URL
	a, err := s.CreateAutomation(ctx, co.ID, api.AutomationSpec{Name: "ended", Enabled: true, TriggerType: api.TriggerTraineeExpired,
		ActionType: api.ActionWebhook, URL: &url}, api.GenerateWebhookSecret(), 0)
	must(t, err)
	storetest.AddWebhook(t, s, co.ID, url, api.EventTraineeExpired)

	raw := storetest.DB(t, s)
	count := func(q string, args ...any) int {
		var c int
		must(t, raw.NewRaw(q, args...).Scan(ctx, &c))
		return c
	}
	// Tiny batches make the evaluation two hundred transactions long.
	flags := []string{"--automations-interval", "1s", "--automations-batch", "10", "--webhook-dispatch=false", "--webhook-allow", "127.0.0.0/8"}
	start := time.Now()
	_, first, logs1 := startServer(t, db, flags...)
	waitFor(t, "the first instance to start firing", func() bool { return count("SELECT COUNT(*) FROM automation_runs") > 0 })
	_, second, logs2 := startServer(t, db, flags...)
	before := count("SELECT COUNT(*) FROM automation_runs")
	must(t, first.Process.Kill()) // SIGKILL
	_ = first.Wait()
	if before >= n {
		t.Fatalf("the first instance finished before it was killed (%d runs); the test proves nothing\n%s", before, logs1.String())
	}
	t.Logf("killed the first instance after %d of %d runs", before, n)

	waitFor(t, "every occurrence to fire", func() bool {
		return count("SELECT COUNT(*) FROM automation_runs") == n && count("SELECT COUNT(*) FROM trainee_expirations") == n
	})
	t.Logf("all fired after %s", time.Since(start))
	stop(t, second, logs2)
	for what, q := range map[string]string{
		"runs":                     "SELECT COUNT(*) FROM automation_runs",
		"trainees with a run":      "SELECT COUNT(DISTINCT trainee_id) FROM automation_runs",
		"automation.fired events":  "SELECT COUNT(*) FROM webhook_events WHERE type = 'automation.fired'",
		"trainees with that event": "SELECT COUNT(DISTINCT trainee_id) FROM webhook_events WHERE type = 'automation.fired'",
		"trainee.expired events":   "SELECT COUNT(*) FROM webhook_events WHERE type = 'trainee.expired'",
		"trainees expired":         "SELECT COUNT(DISTINCT trainee_id) FROM webhook_events WHERE type = 'trainee.expired'",
		"deliveries":               "SELECT COUNT(*) FROM webhook_deliveries",
	} {
		want := n
		if what == "deliveries" {
			want = 2 * n
		}
		if got := count(q); got != want {
			t.Errorf("%s: %d, want %d", what, got, want)
		}
	}
	if got := count("SELECT COUNT(*) FROM automation_runs WHERE automation_id = ? AND occurrence = ?", a.ID, "expired:"+fmt.Sprint(today.Int())); got != n {
		t.Errorf("%d runs with the expected occurrence", got)
	}

	// A dispatching instance delivers them all.
	_, third, logs3 := startServer(t, db, "--automations=false", "--webhook-allow", "127.0.0.0/8",
		"--webhook-endpoint-concurrency", "8", "--webhook-company-concurrency", "8") // one company, two endpoints: let them take the dispatcher
	got := rc.Wait(t, 2*n, 60*time.Second)
	seen := map[string]bool{}
	for _, g := range got {
		seen[g.ID] = true
	}
	if len(seen) != 2*n {
		t.Errorf("%d distinct events delivered, want %d", len(seen), 2*n)
	}
	t.Logf("all delivered after %s", time.Since(start))
	stop(t, third, logs3)
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
