package store

// The automations' matching rules: which trainees an automation is due
// for (matcher: its conditions and, for a time trigger, its due window and
// "not fired yet", as SQL over trainees), an event automation's conditions
// on the trainee after a change (eventMatches), and the dry run over them.
// The status condition is api.StatusRule's.

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// AutomationMatches returns one page of the trainees an automation would
// fire for today, by id (keyset), and how many: for a time trigger, those
// whose occurrence is due and has not fired; for an event trigger, those
// its conditions hold for (the next matching event about them fires it).
func (s *Store) AutomationMatches(ctx context.Context, companyID, id int64, today api.Date, q api.ListQuery) (api.ListPage[*api.Trainee], error) {
	var (
		rows  []*traineeRow
		total int64
	)
	err := s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		a, err := s.loadAutomation(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		loc, err := s.companyLocation(ctx, tx, companyID)
		if err != nil {
			return err
		}
		m := s.matcher(a, today, loc)
		if total, err = m.where(s.traineeScope(tx, companyID)).Count(ctx); err != nil {
			return err
		}
		return listWindow(m.where(s.traineeQuery(tx, companyID)), q, "t.id ASC", afterID("t.id", false)).Scan(ctx, &rows)
	})
	if err != nil {
		return api.ListPage[*api.Trainee]{}, dbError(err)
	}
	return listRows(rows, q.Limit, total, (*traineeRow).toAPI), nil
}

// companyLocation loads a company's time zone.
func (s *Store) companyLocation(ctx context.Context, db bun.IDB, companyID int64) (*time.Location, error) {
	var tz string
	if err := db.NewSelect().Model((*companyRow)(nil)).Column("c.time_zone").Where("c.id = ?", companyID).Scan(ctx, &tz); err != nil {
		return nil, dbError(err)
	}
	return s.location(tz)
}

// matcher is the trainee condition of an automation on one day.
type matcher struct {
	a     *automationRow
	today api.Date
	loc   *time.Location
}

func (s *Store) matcher(a *automationRow, today api.Date, loc *time.Location) *matcher {
	return &matcher{a: a, today: today, loc: loc}
}

// occurrence is the SQL of a time trigger's occurrence for the trainee t.
func (m *matcher) occurrence() string {
	switch m.a.TriggerType {
	case api.TriggerExpirationApproaching:
		return "'approaching:' || CAST(t.expiration_date AS TEXT)"
	case api.TriggerTraineeExpired:
		return "'expired:' || CAST(t.expiration_date AS TEXT)"
	case api.TriggerInactive:
		return "'inactive:' || COALESCE(CAST(t.last_trained AS TEXT), 'never')"
	}
	return "''"
}

// startOf is the first instant of day d in the company's zone, in UTC.
func (m *matcher) startOf(d api.Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, m.loc).UTC()
}

// where adds the automation's conditions and, for a time trigger, its due
// window and "not fired yet" to a query over trainees (alias t).
func (m *matcher) where(q *bun.SelectQuery) *bun.SelectQuery {
	a, today := m.a, m.today
	if a.TrainerID != nil {
		q = q.Where("t.trainer_id = ?", *a.TrainerID)
	}
	if a.Status != nil {
		if r, err := api.RuleOf(*a.Status); err == nil {
			if where, args := r.SQL("t.enabled", "t.expiration_date", today); where != "" {
				q = q.Where(where, args...)
			}
		}
	}
	if !api.IsTimeTrigger(a.TriggerType) {
		return q
	}
	days := 0
	if a.TriggerDays != nil {
		days = *a.TriggerDays
	}
	q = q.Where("t.enabled")
	switch a.TriggerType {
	case api.TriggerExpirationApproaching:
		// Due from expirationDate - days until the day before it, for at
		// most CatchUpDays after the first.
		from := today.AddDays(days - api.CatchUpDays)
		if tomorrow := today.AddDays(1); from.Before(tomorrow) {
			from = tomorrow
		}
		q = q.Where("t.expiration_date BETWEEN ? AND ?", from.Int(), today.AddDays(days).Int())
	case api.TriggerTraineeExpired:
		q = q.Where("t.expiration_date BETWEEN ? AND ?", today.AddDays(-api.CatchUpDays).Int(), today.Int())
	case api.TriggerInactive:
		first, last := today.AddDays(-days-api.CatchUpDays), today.AddDays(-days)
		q = q.Where("(t.last_trained BETWEEN ? AND ? OR (t.last_trained IS NULL AND t.created_at >= ? AND t.created_at < ?))",
			first.Int(), last.Int(), m.startOf(first), m.startOf(last.AddDays(1)))
	}
	return q.Where("NOT EXISTS (SELECT 1 FROM automation_runs AS r WHERE r.automation_id = ? AND r.trainee_id = t.id AND r.occurrence = "+m.occurrence()+")", a.ID)
}

// eventMatches reports whether an event automation's conditions hold for
// the trainee after the change.
func eventMatches(a *automationRow, t *api.Trainee, today api.Date) bool {
	if a.TrainerID != nil && (t.TrainerID == nil || *t.TrainerID != *a.TrainerID) {
		return false
	}
	return a.Status == nil || t.HasStatus(*a.Status, today)
}

// eventAutomationsQuery is company $1's enabled automations of trigger $2,
// which every change runs.
var eventAutomationsQuery = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.db.NewSelect().Model((*automationRow)(nil)).
		Where("au.company_id = ? AND au.enabled AND au.trigger_type = ?", placeholder(1), placeholder(2)).
		OrderExpr("au.id ASC")
}}

// TimeAutomation is an enabled time-triggered automation, as the evaluator
// lists them.
type TimeAutomation struct {
	ID        int64 `bun:"id"`
	CompanyID int64 `bun:"company_id"`
}

// TimeAutomations lists every enabled time-triggered automation of every
// company, by id. It serves the background evaluator, never a request.
func (s *Store) TimeAutomations(ctx context.Context) ([]TimeAutomation, error) {
	var out []TimeAutomation
	err := s.db.NewSelect().Model((*automationRow)(nil)).Column("au.id", "au.company_id").
		Where("au.enabled AND au.trigger_type IN (?)", bun.In([]string{api.TriggerExpirationApproaching, api.TriggerTraineeExpired, api.TriggerInactive})).
		OrderExpr("au.id ASC").
		Scan(ctx, &out)
	return out, err
}
