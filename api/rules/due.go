package rules

import (
	"time"

	"github.com/traineed/traineed/api"
)

// DateRange is the days From to To, both included.
type DateRange struct{ From, To api.Date }

// Inactivity is INACTIVE's due window: a last workout within Trained, or,
// for a trainee that never trained, a creation within [CreatedFrom,
// CreatedTo).
type Inactivity struct {
	Trained                DateRange
	CreatedFrom, CreatedTo time.Time
}

// What an occurrence is made of, besides its prefix.
const (
	OfExpiration  = "expirationDate" // the trainee's expiration date
	OfLastTrained = "lastTrained"    // the last workout's date, "never" for none
)

// Occurrence is how a time trigger's run names its occurrence: Prefix
// followed by the trainee's date Of (the key a run is unique under, with
// the automation and the trainee).
type Occurrence struct {
	Prefix string
	Of     string
}

// Window is which trainees an automation is due for on one company day:
// its conditions (trainer, status rule) and, for a time trigger, live
// trainees whose date falls in its due window (Expiration or Inactive)
// and whose Occurrence has not fired yet. The store makes it SQL.
type Window struct {
	Today     api.Date // the company's day it is judged on
	TrainerID *int64
	Status    *api.StatusRule // nil: any status
	// Time is set for a time trigger: only live trainees, in the window,
	// not fired for Occurrence.
	Time       bool
	Expiration *DateRange
	Inactive   *Inactivity
	Occurrence Occurrence
}

// Due is a's window on the company's day today, in its zone loc. An event
// automation's is its conditions alone: the trainees the next matching
// event about them would fire it for.
func Due(a *Automation, today api.Date, loc *time.Location) Window {
	w := Window{Today: today, TrainerID: a.TrainerID}
	if a.Status != nil {
		if r, err := api.RuleOf(*a.Status); err == nil {
			w.Status = &r
		}
	}
	if !api.IsTimeTrigger(a.TriggerType) {
		return w
	}
	days := 0
	if a.Days != nil {
		days = *a.Days
	}
	w.Time = true
	switch a.TriggerType {
	case api.TriggerExpirationApproaching:
		// Due from expirationDate - days until the day before it, for at
		// most CatchUpDays after the first.
		from := today.AddDays(days - api.CatchUpDays)
		if tomorrow := today.AddDays(1); from.Before(tomorrow) {
			from = tomorrow
		}
		w.Expiration = &DateRange{From: from, To: today.AddDays(days)}
		w.Occurrence = Occurrence{Prefix: "approaching:", Of: OfExpiration}
	case api.TriggerTraineeExpired:
		r := ExpiryWindow(today)
		w.Expiration = &r
		w.Occurrence = Occurrence{Prefix: "expired:", Of: OfExpiration}
	case api.TriggerInactive:
		first, last := today.AddDays(-days-api.CatchUpDays), today.AddDays(-days)
		w.Inactive = &Inactivity{Trained: DateRange{From: first, To: last},
			CreatedFrom: startOf(first, loc), CreatedTo: startOf(last.AddDays(1), loc)}
		w.Occurrence = Occurrence{Prefix: "inactive:", Of: OfLastTrained}
	}
	return w
}

// startOf is the first instant of day d in zone loc, in UTC.
func startOf(d api.Date, loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc).UTC()
}
