package store

// The automations' matching as queries: an automation's window (which
// trainees it is due for, decided by rules.Due: its conditions and, for a
// time trigger, its due window and "not fired yet") as SQL over trainees,
// the dry run over it, the lists the firing reads, and a change's event
// automations looked up and judged by the rules (fireEventAutomations).

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
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

// matcher is an automation's window (rules.Due) as SQL over trainees.
type matcher struct {
	id int64 // the automation's
	w  rules.Window
}

func (s *Store) matcher(a *automationRow, today api.Date, loc *time.Location) *matcher {
	return &matcher{id: a.ID, w: rules.Due(a.rule(), today, loc)}
}

// occurrence is the SQL of a time trigger's occurrence for the trainee t.
func (m *matcher) occurrence() string {
	o := m.w.Occurrence
	switch o.Of {
	case rules.OfExpiration:
		return "'" + o.Prefix + "' || CAST(t.expiration_date AS TEXT)"
	case rules.OfLastTrained:
		return "'" + o.Prefix + "' || COALESCE(CAST(t.last_trained AS TEXT), 'never')"
	}
	return "''"
}

// where adds the window to a query over trainees (alias t): the
// automation's conditions and, for a time trigger, live trainees in its
// due window whose occurrence has not fired.
func (m *matcher) where(q *bun.SelectQuery) *bun.SelectQuery {
	w := m.w
	if w.TrainerID != nil {
		q = q.Where("t.trainer_id = ?", *w.TrainerID)
	}
	if w.Status != nil {
		if where, args := w.Status.SQL("t.enabled", "t.expiration_date", w.Today); where != "" {
			q = q.Where(where, args...)
		}
	}
	if !w.Time {
		return q
	}
	q = q.Where("t.enabled")
	if r := w.Expiration; r != nil {
		q = q.Where("t.expiration_date BETWEEN ? AND ?", r.From.Int(), r.To.Int())
	}
	if in := w.Inactive; in != nil {
		q = q.Where("(t.last_trained BETWEEN ? AND ? OR (t.last_trained IS NULL AND t.created_at >= ? AND t.created_at < ?))",
			in.Trained.From.Int(), in.Trained.To.Int(), in.CreatedFrom, in.CreatedTo)
	}
	return q.Where("NOT EXISTS (SELECT 1 FROM automation_runs AS r WHERE r.automation_id = ? AND r.trainee_id = t.id AND r.occurrence = "+m.occurrence()+")", m.id)
}

// fireEventAutomations fires, inside the change's transaction, the
// company's enabled automations of the event's trigger (rows: the
// change's batch read them) that the rules (rules.OnEvent) fire for the
// trainee after the change (fireRun): a change that rolls back fires
// nothing, and the run's unique occurrence fires each once. Their verdicts
// and deliveries go into ch.
func (s *Store) fireEventAutomations(ctx context.Context, tx bun.Tx, ch *traineeChange, rows []*automationRow, eventType, eventID string, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	if s.tracer != nil {
		var span trace.Span
		ctx, span = s.tracer.Start(ctx, "automations.match", trace.WithAttributes(
			attribute.String("traineed.automation.trigger", api.TriggerOfEvent(eventType)), attribute.Int64("traineed.company_id", ch.After.CompanyID)))
		defer span.End()
	}
	autos := make([]*rules.Automation, len(rows))
	for i, a := range rows {
		autos[i] = a.rule()
	}
	var today api.Date
	if rules.NeedsDay(autos) {
		loc, err := s.companyLocation(ctx, tx, ch.After.CompanyID)
		if err != nil {
			return err
		}
		today = api.Today(now, loc)
	}
	for _, f := range rules.OnEvent(autos, ch.After, today, eventID, now) {
		if err := s.fireRun(ctx, tx, f, ch.After, now, ch); err != nil {
			return err
		}
	}
	return nil
}

// eventAutomationsQuery is company $1's enabled automations of trigger $2,
// which every change reads (writeChange).
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
		Where("au.enabled AND au.trigger_type IN (?)", bun.In(rules.TimeTriggers)).
		OrderExpr("au.id ASC").
		Scan(ctx, &out)
	return out, err
}
