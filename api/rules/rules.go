// Package rules is the automations' rules engine: which automations a
// trainee's change fires, which trainees a time trigger is due for, what
// each run starts as, what a WEBHOOK action sends, how the DISABLE_TRAINEE
// verdicts of one change settle, and what the evaluator lists, records and
// prunes. It is plain functions over plain data: it reads no database and
// sends nothing. The store runs its decisions inside the change's own
// transaction (the run under its unique occurrence, the action's event in
// the outbox, the disable as a second change) and turns its windows into
// SQL; the evaluator in jobs asks it the same questions for the time
// triggers. It imports only api, so that both store and jobs import it.
package rules

import (
	"time"

	"github.com/traineed/traineed/api"
)

// Automation is what the rules read of an automation.
type Automation struct {
	ID, CompanyID int64
	Name          string
	TriggerType   string
	Days          *int // trigger.days
	TrainerID     *int64
	Status        *string
	ActionType    string
}

// Trigger is the automation's trigger as the API shows it.
func (a *Automation) Trigger() api.AutomationTrigger {
	var days *int
	if a.Days != nil {
		d := *a.Days
		days = &d
	}
	return api.AutomationTrigger{Type: a.TriggerType, Days: days}
}

// Actor is the automation as the actor of what its action does.
func (a *Automation) Actor() api.Actor { return api.Actor{Type: api.ActorAutomation, ID: a.ID} }

// TimeTriggers are the triggers the evaluator fires on the calendar.
var TimeTriggers = []string{api.TriggerExpirationApproaching, api.TriggerTraineeExpired, api.TriggerInactive}

// NeedsDay reports whether judging autos needs the company's day: one of
// them has a status condition.
func NeedsDay(autos []*Automation) bool {
	for _, a := range autos {
		if a.Status != nil {
			return true
		}
	}
	return false
}

// Firing is the decision to fire an automation for a trainee: its run's
// unique occurrence and the outcome the run starts with.
type Firing struct {
	Automation *Automation
	Occurrence string
	Outcome    string
	// Event is the automation.fired event a WEBHOOK action sends (Fired);
	// nil for other actions.
	Event *api.AutomationFired
}

// OnEvent decides which of autos (the company's enabled automations of
// the event's trigger, api.TriggerOfEvent, by id) fire for the trainee
// after the change that recorded event eventID at now, on the company's
// day today (needed only when NeedsDay). Each fires once per event: its
// occurrence is the event's.
func OnEvent(autos []*Automation, t *api.Trainee, today api.Date, eventID string, now time.Time) []Firing {
	var out []Firing
	for _, a := range autos {
		if !Holds(a, t, today) {
			continue
		}
		f := Firing{Automation: a, Occurrence: "event:" + eventID, Outcome: InitialOutcome(a)}
		if a.ActionType == api.ActionWebhook {
			ev := Fired(a, t, now)
			f.Event = &ev
		}
		out = append(out, f)
	}
	return out
}

// Holds reports whether an automation's conditions hold for a trainee on
// the company's day today: its trainer, and its status by api's one
// status rule.
func Holds(a *Automation, t *api.Trainee, today api.Date) bool {
	if a.TrainerID != nil && (t.TrainerID == nil || *t.TrainerID != *a.TrainerID) {
		return false
	}
	return a.Status == nil || t.HasStatus(*a.Status, today)
}

// InitialOutcome is the outcome a run of a starts with: a WEBHOOK's is
// pending until its delivery ends; a DISABLE_TRAINEE's is disabled unless
// Settle skips it.
func InitialOutcome(a *Automation) string {
	if a.ActionType == api.ActionWebhook {
		return api.OutcomePending
	}
	return api.OutcomeDisabled
}

// Fired is the automation.fired event a WEBHOOK action sends about t.
func Fired(a *Automation, t *api.Trainee, now time.Time) api.AutomationFired {
	return api.AutomationFired{
		Type:      api.EventAutomationFired,
		Timestamp: now.Unix(),
		Data: api.AutomationFiredData{
			Automation: api.AutomationRef{ID: a.ID, Name: a.Name, Trigger: a.Trigger()},
			Trainee:    t,
		},
	}
}

// Verdict is a DISABLE_TRAINEE run's verdict on its trainee: the run, and
// its automation (the actor of the disable it leads to).
type Verdict struct{ Run, Automation int64 }

// Verdict is the verdict of a run of a, when a's action is one; a WEBHOOK
// gives none (its action is its event).
func (f Firing) Verdict(run int64) (Verdict, bool) {
	if f.Automation.ActionType != api.ActionDisableTrainee {
		return Verdict{}, false
	}
	return Verdict{Run: run, Automation: f.Automation.ID}, true
}

// Settle decides a change's DISABLE_TRAINEE verdicts on one trainee:
// while it is live (enabled), the first verdict soft-deletes it, its
// automation the actor; every other verdict finds it deleted and its run
// is skipped. The disable is a change of its own, whose event may fire
// more verdicts: they are settled the same way, and find the trainee
// deleted, so the settling ends.
func Settle(live bool, verdicts []Verdict) (disable *Verdict, skipped []int64) {
	if live && len(verdicts) > 0 {
		v := verdicts[0]
		disable, verdicts = &v, verdicts[1:]
	}
	for _, v := range verdicts {
		skipped = append(skipped, v.Run)
	}
	return disable, skipped
}

// ExpiryWindow is the expiration dates whose trainee.expired event is
// recorded on the company's day today: today's, and those missed within
// api.CatchUpDays while no server ran.
func ExpiryWindow(today api.Date) DateRange {
	return DateRange{From: today.AddDays(-api.CatchUpDays), To: today}
}

// PruneBefore is the instant before which a deleted automation's runs are
// pruned, at now.
func PruneBefore(now time.Time) time.Time { return now.Add(-api.RunRetention) }
