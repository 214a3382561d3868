package api

import "fmt"

// The trainee-status rule, in one place: what live, active, expired,
// deleted and all mean, from which both the Go predicate (a trainee's
// status, an event automation's condition, the clients' filters) and the
// SQL condition (search, the automations' matching) are made, so that the
// two never disagree. A trainee is deleted when it is not enabled; a live
// one is expired once its expirationDate is the company's today or before,
// and active otherwise (no expirationDate never expires).

// Expiry is what a status asks of expirationDate.
type Expiry int

const (
	AnyExpiry  Expiry = iota // no condition
	NotExpired               // null, or after today
	Expired                  // today or before (never null)
)

// StatusRule is one status's condition: on enabled (nil: either) and on
// the expiration date.
type StatusRule struct {
	Enabled *bool
	Expiry  Expiry
}

var (
	yes, no     = true, false
	statusRules = map[string]StatusRule{
		StatusAll:     {},
		StatusLive:    {Enabled: &yes},
		StatusActive:  {Enabled: &yes, Expiry: NotExpired},
		StatusExpired: {Enabled: &yes, Expiry: Expired},
		StatusDeleted: {Enabled: &no},
	}
)

// RuleOf returns status's rule ("" is live, the default of a search).
func RuleOf(status string) (StatusRule, error) {
	if status == "" {
		status = StatusLive
	}
	r, ok := statusRules[status]
	if !ok {
		return StatusRule{}, fmt.Errorf("unknown status %q", status)
	}
	return r, nil
}

// Holds reports whether a trainee (enabled, expiration date) has the
// status on today.
func (r StatusRule) Holds(enabled bool, expiration *Date, today Date) bool {
	if r.Enabled != nil && enabled != *r.Enabled {
		return false
	}
	expired := expiration != nil && !expiration.After(today)
	switch r.Expiry {
	case NotExpired:
		return !expired
	case Expired:
		return expired
	}
	return true
}

// SQL is the rule as a condition over the columns enabledCol (boolean) and
// expirationCol (YYYYMMDD, or NULL), with its arguments; "" is no condition.
func (r StatusRule) SQL(enabledCol, expirationCol string, today Date) (string, []any) {
	var where string
	var args []any
	and := func(cond string, a ...any) {
		if where != "" {
			where += " AND "
		}
		where += cond
		args = append(args, a...)
	}
	if r.Enabled != nil {
		if *r.Enabled {
			and(enabledCol)
		} else {
			and("NOT " + enabledCol)
		}
	}
	switch r.Expiry {
	case NotExpired:
		and("("+expirationCol+" IS NULL OR "+expirationCol+" > ?)", today.Int())
	case Expired:
		and(expirationCol+" <= ?", today.Int())
	}
	return where, args
}

// Status derives the status a person sees: deleted, expired or active.
func (t *Trainee) Status(today Date) string {
	for _, st := range []string{StatusDeleted, StatusExpired, StatusActive} {
		if statusRules[st].Holds(t.Enabled, t.ExpirationDate, today) {
			return st
		}
	}
	return StatusActive // unreachable: the three cover every trainee
}

// HasStatus reports whether t has status (live, active, expired, deleted
// or all) on today; an unknown status holds for none.
func (t *Trainee) HasStatus(status string, today Date) bool {
	r, err := RuleOf(status)
	return err == nil && r.Holds(t.Enabled, t.ExpirationDate, today)
}
