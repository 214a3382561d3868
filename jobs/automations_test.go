package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// clock is a movable clock: tests set the company's "today" with it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func mustAutomation(t *testing.T, s *store.Store, company int64, spec api.AutomationSpec) *api.Automation {
	t.Helper()
	a, err := s.CreateAutomation(ctx, company, spec, api.GenerateWebhookSecret(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func runsOf(t *testing.T, s *store.Store, company, id int64) []*api.AutomationRun {
	t.Helper()
	page, err := s.AutomationRuns(ctx, company, id, api.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	runs := page.Rows
	slices.Reverse(runs) // oldest first
	return runs
}

// occurrences lists "traineeID occurrence" of runs, oldest first.
func occurrences(runs []*api.AutomationRun) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = fmt.Sprintf("%d %s", r.TraineeID, r.Occurrence)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// Every time trigger fires once and only once per occurrence as the
// company's "today" moves (by an injected clock, forwards and back): a new
// expirationDate is a new occurrence, a day missed by more than the
// catch-up window never fires, conditions filter, DISABLE_TRAINEE
// soft-deletes, WEBHOOK automations and trainee.expired reach real
// receivers signed.
func TestTimeTriggers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s) // A is Europe/London
		london, _ := time.LoadLocation("Europe/London")
		base := time.Now()
		t0 := api.Today(base, london)
		at := func(days int) time.Time { return base.AddDate(0, 0, days) }
		day := func(n int) *api.Date { d := t0.AddDays(n); return &d }

		hook := storetest.NewReceiver(t, nil)
		expiredHook := storetest.NewReceiver(t, nil)
		_, expiredSecret := storetest.AddWebhook(t, s, ten.A, expiredHook.URL, api.EventTraineeExpired)

		nt := func(name string, exp *api.Date, trainer *int64) api.NewTrainee {
			n := storetest.NewTrainee(name, fmt.Sprintf("%s@time.example", name))
			n.ExpirationDate, n.TrainerID = exp, trainer
			return n
		}
		t1 := storetest.MustCreate(t, s, ten.A, nt("t1", day(10), nil))
		t2 := storetest.MustCreate(t, s, ten.A, nt("t2", day(3), &ten.TrainerA2))
		t3 := storetest.MustCreate(t, s, ten.A, nt("t3", nil, nil)) // never trains
		t4 := storetest.MustCreate(t, s, ten.A, nt("t4", nil, nil))
		gone := nt("t5", day(5), nil)
		gone.Enabled = false
		storetest.MustCreate(t, s, ten.A, gone)                            // soft-deleted: never fires
		storetest.MustCreate(t, s, ten.B, nt("b1", day(3), &ten.TrainerB)) // another company's
		loadWorkout(t, s, ten.A, t4.ID, *day(-1))

		url := hook.URL
		approaching := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "a week before", Enabled: true,
			TriggerType: api.TriggerExpirationApproaching, Days: ptr(7), ActionType: api.ActionWebhook, URL: &url})
		approachingA2 := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "a week before, Tom's", Enabled: true,
			TriggerType: api.TriggerExpirationApproaching, Days: ptr(7), TrainerID: &ten.TrainerA2, ActionType: api.ActionDisableTrainee})
		expired := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "ended", Enabled: true,
			TriggerType: api.TriggerTraineeExpired, ActionType: api.ActionWebhook, URL: &url})
		inactive := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "14 days idle", Enabled: true,
			TriggerType: api.TriggerInactive, Days: ptr(14), Status: ptr(api.StatusActive), ActionType: api.ActionWebhook, URL: &url})
		disableExpired := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "disable at the end", Enabled: true,
			TriggerType: api.TriggerTraineeExpired, ActionType: api.ActionDisableTrainee})
		paused := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "paused", Enabled: false,
			TriggerType: api.TriggerTraineeExpired, ActionType: api.ActionDisableTrainee})

		clk := &clock{}
		ev := jobs.NewEvaluator(s, jobs.EvaluatorConfig{Now: clk.Now, Batch: 2}) // small batches: several transactions
		evaluate := func(days int) jobs.Evaluation {
			t.Helper()
			clk.Set(at(days))
			res, err := ev.Evaluate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ev.Evaluate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if again.Fired != 0 || again.Expirations != 0 {
				t.Fatalf("day %d: a second evaluation fired %+v", days, again)
			}
			return res
		}
		check := func(when string, a *api.Automation, want ...string) {
			t.Helper()
			if got := occurrences(runsOf(t, s, ten.A, a.ID)); !slices.Equal(got, want) {
				t.Fatalf("%s: %s fired %q, want %q", when, a.Name, got, want)
			}
		}
		d := func(n int) string { return fmt.Sprint(t0.AddDays(n).Int()) }

		// Day 0: t2 expires in 3 days.
		evaluate(0)
		check("day 0", approaching, fmt.Sprintf("%d approaching:%s", t2.ID, d(3)))
		check("day 0", approachingA2, fmt.Sprintf("%d approaching:%s", t2.ID, d(3)))
		check("day 0", expired)
		if storetest.MustGet(t, s, ten.A, t2.ID).Enabled {
			t.Fatal("DISABLE_TRAINEE did not soft-delete t2")
		}
		// Restore t2: its occurrence has fired, nothing fires again.
		if _, err := s.UpdateTrainee(ctx, ten.A, t2.ID, api.TraineePatch{Enabled: api.Val(true)}); err != nil {
			t.Fatal(err)
		}
		// Day 3: t1 is 7 days out, t2's program ends today.
		evaluate(3)
		check("day 3", approaching, fmt.Sprintf("%d approaching:%s", t2.ID, d(3)), fmt.Sprintf("%d approaching:%s", t1.ID, d(10)))
		check("day 3", expired, fmt.Sprintf("%d expired:%s", t2.ID, d(3)))
		check("day 3", disableExpired, fmt.Sprintf("%d expired:%s", t2.ID, d(3)))
		check("day 3", inactive)
		// The clock jumps back: nothing fires twice.
		evaluate(1)
		evaluate(3)
		// Day 14: t1 ended on day 10 (within the catch-up window), t3 never
		// trained and was created 14 days ago, t4 last trained 15 days ago.
		evaluate(14)
		check("day 14", expired, fmt.Sprintf("%d expired:%s", t2.ID, d(3)), fmt.Sprintf("%d expired:%s", t1.ID, d(10)))
		check("day 14", inactive, fmt.Sprintf("%d inactive:never", t3.ID), fmt.Sprintf("%d inactive:%s", t4.ID, d(-1)))
		// t2 is deleted now (disableExpired), so inactive skips it.
		// A new expirationDate is a new occurrence.
		if _, err := s.UpdateTrainee(ctx, ten.A, t2.ID, api.TraineePatch{Enabled: api.Val(true), ExpirationDate: api.Val(t0.AddDays(19))}); err != nil {
			t.Fatal(err)
		}
		evaluate(14)
		check("day 14, new date", approaching, fmt.Sprintf("%d approaching:%s", t2.ID, d(3)), fmt.Sprintf("%d approaching:%s", t1.ID, d(10)),
			fmt.Sprintf("%d approaching:%s", t2.ID, d(19)))
		// Day 40: a trainee whose program ended 9 days ago (more than 7)
		// never fires the TRAINEE_EXPIRED it missed.
		late := storetest.MustCreate(t, s, ten.A, nt("late", day(31), nil))
		evaluate(40)
		for _, r := range runsOf(t, s, ten.A, expired.ID) {
			if r.TraineeID == late.ID {
				t.Fatal("fired for a day passed by more than 7 days")
			}
		}
		check("never", paused)

		// Every WEBHOOK run is linked to a delivery of its own
		// automation.fired event, about its own trainee.
		if n := storetest.Count(t, s, "automation_runs", "outcome = ?", api.OutcomePending); n == 0 {
			t.Fatal("no pending WEBHOOK runs")
		}
		if n := storetest.Count(t, s, "automation_runs", `outcome = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS d
			JOIN webhook_events AS e ON e.id = d.event_id JOIN webhooks AS w ON w.id = d.webhook_id
			WHERE d.id = automation_runs.delivery_id AND e.trainee_id = automation_runs.trainee_id
			AND e.type = ? AND w.automation_id = automation_runs.automation_id)`, api.OutcomePending, api.EventAutomationFired); n != 0 {
			t.Fatalf("%d WEBHOOK runs without their own delivery", n)
		}

		// The WEBHOOK runs reached the receiver, signed with their
		// automation's secret; trainee.expired reached its subscriber.
		startDispatcher(t, s, jobs.DispatcherConfig{})
		webhookRuns := len(runsOf(t, s, ten.A, approaching.ID)) + len(runsOf(t, s, ten.A, expired.ID)) + len(runsOf(t, s, ten.A, inactive.ID))
		got := hook.Wait(t, webhookRuns, 10*time.Second)
		seen := map[string]bool{}
		for _, g := range got {
			var f api.AutomationFired
			if err := json.Unmarshal(g.Body, &f); err != nil || f.Type != api.EventAutomationFired || f.Data.Trainee == nil {
				t.Fatalf("body %s", g.Body)
			}
			seen[fmt.Sprintf("%d/%d", f.Data.Automation.ID, f.Data.Trainee.ID)] = true
		}
		if len(seen) != webhookRuns-1 { // t2 approached twice (two dates): the same pair
			t.Fatalf("deliveries %v for %d runs", seen, webhookRuns)
		}
		exp := expiredHook.Wait(t, 2, 10*time.Second)
		var ids []int64
		for _, g := range exp {
			if err := g.Verify(expiredSecret); err != nil {
				t.Fatal(err)
			}
			if g.Event.Type != api.EventTraineeExpired {
				t.Fatalf("event %s", g.Body)
			}
			ids = append(ids, g.Event.Data.Trainee.ID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, []int64{t1.ID, t2.ID}) {
			t.Fatalf("trainee.expired for %v, want %d and %d", ids, t1.ID, t2.ID)
		}
		// Company B's trainee fired nothing of A's.
		if n := storetest.Count(t, s, "automation_runs", "company_id = ?", ten.B); n != 0 {
			t.Fatalf("%d runs in company B", n)
		}
	})
}

func loadWorkout(t *testing.T, s *store.Store, company, trainee int64, day api.Date) {
	t.Helper()
	err := s.Load(ctx, func(ctx2 context.Context, l *store.Loader) error {
		return l.AddTracked(ctx2, company, []api.TrackedRecord{{Type: api.RecordWorkout, TraineeID: trainee, Date: day}})
	})
	if err != nil {
		t.Fatal(err)
	}
}
