package rules_test

import (
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
)

func ptr[T any](v T) *T { return &v }

var today = api.Date{Year: 2026, Month: time.March, Day: 10}

func TestHolds(t *testing.T) {
	live := &api.Trainee{ID: 1, Enabled: true, TrainerID: ptr(int64(7))}
	expired := &api.Trainee{ID: 2, Enabled: true, ExpirationDate: &today}
	deleted := &api.Trainee{ID: 3, Enabled: false}
	cases := []struct {
		name string
		a    rules.Automation
		t    *api.Trainee
		want bool
	}{
		{"no conditions", rules.Automation{}, deleted, true},
		{"its trainer", rules.Automation{TrainerID: ptr(int64(7))}, live, true},
		{"another trainer", rules.Automation{TrainerID: ptr(int64(8))}, live, false},
		{"a trainer, trainee without one", rules.Automation{TrainerID: ptr(int64(7))}, expired, false},
		{"active, live without expiry", rules.Automation{Status: ptr(api.StatusActive)}, live, true},
		{"active, expiring today", rules.Automation{Status: ptr(api.StatusActive)}, expired, false},
		{"expired, expiring today", rules.Automation{Status: ptr(api.StatusExpired)}, expired, true},
		{"live, deleted", rules.Automation{Status: ptr(api.StatusLive)}, deleted, false},
	}
	for _, c := range cases {
		if got := rules.Holds(&c.a, c.t, today); got != c.want {
			t.Errorf("%s: Holds = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOnEvent(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	hook := &rules.Automation{ID: 1, CompanyID: 5, Name: "hook", TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionWebhook}
	other := &rules.Automation{ID: 2, CompanyID: 5, TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionDisableTrainee, TrainerID: ptr(int64(9))}
	disable := &rules.Automation{ID: 3, CompanyID: 5, TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionDisableTrainee}
	tr := &api.Trainee{ID: 40, Enabled: true}
	got := rules.OnEvent([]*rules.Automation{hook, other, disable}, tr, today, "evt_1", now)
	if len(got) != 2 || got[0].Automation != hook || got[1].Automation != disable {
		t.Fatalf("OnEvent fired %+v, want automations 1 and 3 (2's trainer does not match)", got)
	}
	for _, f := range got {
		if f.Occurrence != "event:evt_1" {
			t.Errorf("automation %d: occurrence %q, want the event's", f.Automation.ID, f.Occurrence)
		}
	}
	if got[0].Outcome != api.OutcomePending || got[0].Event == nil {
		t.Fatalf("WEBHOOK firing: outcome %q, event %v; want pending with its event", got[0].Outcome, got[0].Event)
	}
	ev := got[0].Event
	if ev.Type != api.EventAutomationFired || ev.Timestamp != now.Unix() || ev.Data.Trainee != tr ||
		ev.Data.Automation.ID != 1 || ev.Data.Automation.Name != "hook" || ev.Data.Automation.Trigger.Type != api.TriggerTraineeCreated {
		t.Errorf("WEBHOOK event = %+v", ev)
	}
	if _, ok := got[0].Verdict(100); ok {
		t.Error("a WEBHOOK firing gave a verdict")
	}
	if got[1].Outcome != api.OutcomeDisabled || got[1].Event != nil {
		t.Errorf("DISABLE_TRAINEE firing: outcome %q, event %v; want disabled without an event", got[1].Outcome, got[1].Event)
	}
	if v, ok := got[1].Verdict(101); !ok || v != (rules.Verdict{Run: 101, Automation: 3}) {
		t.Errorf("DISABLE_TRAINEE verdict = %+v, %v", v, ok)
	}
}

func TestNeedsDay(t *testing.T) {
	plain := &rules.Automation{ID: 1}
	if rules.NeedsDay([]*rules.Automation{plain, {TrainerID: ptr(int64(1))}}) {
		t.Error("NeedsDay without a status condition")
	}
	if !rules.NeedsDay([]*rules.Automation{plain, {Status: ptr(api.StatusActive)}}) {
		t.Error("not NeedsDay with a status condition")
	}
}

func TestSettle(t *testing.T) {
	vs := []rules.Verdict{{Run: 1, Automation: 10}, {Run: 2, Automation: 11}, {Run: 3, Automation: 12}}
	disable, skipped := rules.Settle(true, vs)
	if disable == nil || *disable != vs[0] || !slices.Equal(skipped, []int64{2, 3}) {
		t.Errorf("live: Settle = %v, %v; want the first to disable, 2 and 3 skipped", disable, skipped)
	}
	disable, skipped = rules.Settle(false, vs)
	if disable != nil || !slices.Equal(skipped, []int64{1, 2, 3}) {
		t.Errorf("deleted: Settle = %v, %v; want every run skipped", disable, skipped)
	}
	if disable, skipped = rules.Settle(true, nil); disable != nil || skipped != nil {
		t.Errorf("no verdicts: Settle = %v, %v", disable, skipped)
	}
}

func TestDue(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip(err)
	}
	day := func(d int) api.Date { return today.AddDays(d) }
	t.Run("event trigger: its conditions only", func(t *testing.T) {
		w := rules.Due(&rules.Automation{TriggerType: api.TriggerTraineeUpdated, Status: ptr(api.StatusExpired), TrainerID: ptr(int64(3))}, today, london)
		if w.Time || w.Expiration != nil || w.Inactive != nil || w.Status == nil || w.Status.Expiry != api.Expired || *w.TrainerID != 3 || w.Today != today {
			t.Errorf("window = %+v", w)
		}
	})
	t.Run("approaching: days ahead, clipped to tomorrow", func(t *testing.T) {
		w := rules.Due(&rules.Automation{TriggerType: api.TriggerExpirationApproaching, Days: ptr(3)}, today, london)
		if !w.Time || w.Expiration == nil || *w.Expiration != (rules.DateRange{From: day(1), To: day(3)}) {
			t.Errorf("window = %+v, %+v", w, w.Expiration)
		}
		w = rules.Due(&rules.Automation{TriggerType: api.TriggerExpirationApproaching, Days: ptr(30)}, today, london)
		if *w.Expiration != (rules.DateRange{From: day(30 - api.CatchUpDays), To: day(30)}) {
			t.Errorf("30 days: expiration %+v", w.Expiration)
		}
		if w.Occurrence != (rules.Occurrence{Prefix: "approaching:", Of: rules.OfExpiration}) {
			t.Errorf("occurrence %+v", w.Occurrence)
		}
	})
	t.Run("expired: today and the catch-up days", func(t *testing.T) {
		w := rules.Due(&rules.Automation{TriggerType: api.TriggerTraineeExpired}, today, london)
		if *w.Expiration != (rules.DateRange{From: day(-api.CatchUpDays), To: today}) || w.Occurrence.Prefix != "expired:" {
			t.Errorf("window = %+v, %+v", w, w.Expiration)
		}
		if rules.ExpiryWindow(today) != *w.Expiration {
			t.Errorf("ExpiryWindow = %+v, the trigger's %+v", rules.ExpiryWindow(today), *w.Expiration)
		}
	})
	t.Run("inactive: days in the company's zone", func(t *testing.T) {
		w := rules.Due(&rules.Automation{TriggerType: api.TriggerInactive, Days: ptr(14)}, api.Date{Year: 2026, Month: time.July, Day: 20}, london)
		in := w.Inactive
		if in == nil || in.Trained != (rules.DateRange{From: api.Date{Year: 2026, Month: time.June, Day: 29}, To: api.Date{Year: 2026, Month: time.July, Day: 6}}) {
			t.Fatalf("inactive = %+v", in)
		}
		// London is an hour ahead of UTC in summer: its midnight is 23:00 UTC.
		if want := time.Date(2026, 6, 28, 23, 0, 0, 0, time.UTC); !in.CreatedFrom.Equal(want) || in.CreatedFrom.Location() != time.UTC {
			t.Errorf("CreatedFrom = %v, want %v", in.CreatedFrom, want)
		}
		if want := time.Date(2026, 7, 6, 23, 0, 0, 0, time.UTC); !in.CreatedTo.Equal(want) {
			t.Errorf("CreatedTo = %v, want %v", in.CreatedTo, want)
		}
		if w.Occurrence != (rules.Occurrence{Prefix: "inactive:", Of: rules.OfLastTrained}) || w.Expiration != nil {
			t.Errorf("window = %+v", w)
		}
	})
}

func TestPruneBefore(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	if got := rules.PruneBefore(now); !got.Equal(now.Add(-api.RunRetention)) {
		t.Errorf("PruneBefore = %v", got)
	}
}
