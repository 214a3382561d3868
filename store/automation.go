package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

var _ api.AutomationStore = (*Store)(nil)

// automationRow is an automation; run_count and last_run_at come from its
// runs (automationQuery), never from a counter every firing would update.
type automationRow struct {
	bun.BaseModel `bun:"table:automations,alias:au"`

	ID          int64     `bun:"id,pk,autoincrement"`
	CompanyID   int64     `bun:"company_id"`
	Name        string    `bun:"name"`
	Enabled     bool      `bun:"enabled"`
	TriggerType string    `bun:"trigger_type"`
	TriggerDays *int      `bun:"trigger_days"`
	TrainerID   *int64    `bun:"trainer_id"`
	Status      *string   `bun:"status"`
	ActionType  string    `bun:"action_type"`
	URL         *string   `bun:"url"`
	CreatedAt   time.Time `bun:"created_at"`
	UpdatedAt   time.Time `bun:"updated_at"`
	// DisabledReason says why the server disabled it (its URL answered
	// 410 Gone, or is refused); cleared when it is enabled again.
	DisabledReason *string `bun:"disabled_reason"`

	LastRunAt *time.Time `bun:"last_run_at,scanonly"`
	RunCount  int64      `bun:"run_count,scanonly"`
}

func (a *automationRow) spec() api.AutomationSpec {
	return api.AutomationSpec{Name: a.Name, Enabled: a.Enabled, TriggerType: a.TriggerType, Days: clonePtr(a.TriggerDays),
		TrainerID: clonePtr(a.TrainerID), Status: clonePtr(a.Status), ActionType: a.ActionType, URL: clonePtr(a.URL)}
}

func (a *automationRow) setSpec(s api.AutomationSpec) {
	a.Name, a.Enabled, a.TriggerType, a.TriggerDays = s.Name, s.Enabled, s.TriggerType, clonePtr(s.Days)
	a.TrainerID, a.Status, a.ActionType, a.URL = clonePtr(s.TrainerID), clonePtr(s.Status), s.ActionType, clonePtr(s.URL)
}

func (a *automationRow) trigger() api.AutomationTrigger {
	return api.AutomationTrigger{Type: a.TriggerType, Days: clonePtr(a.TriggerDays)}
}

func (a *automationRow) toAPI() *api.Automation {
	var last *time.Time
	if a.LastRunAt != nil {
		t := a.LastRunAt.UTC()
		last = &t
	}
	return &api.Automation{
		ID: a.ID, Name: a.Name, Enabled: a.Enabled,
		Trigger:    a.trigger(),
		Conditions: api.AutomationConditions{TrainerID: clonePtr(a.TrainerID), Status: clonePtr(a.Status)},
		ActionType: a.ActionType,
		Action:     api.AutomationAction{URL: clonePtr(a.URL)},
		CreatedAt:  a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
		LastRunAt: last, RunCount: a.RunCount, DisabledReason: a.DisabledReason,
	}
}

// automationRunRow is one firing.
type automationRunRow struct {
	bun.BaseModel `bun:"table:automation_runs,alias:r"`

	ID                  int64      `bun:"id,pk,autoincrement"`
	CompanyID           int64      `bun:"company_id"`
	AutomationID        int64      `bun:"automation_id"`
	TraineeID           int64      `bun:"trainee_id"`
	Occurrence          string     `bun:"occurrence"`
	FiredAt             time.Time  `bun:"fired_at"`
	Outcome             string     `bun:"outcome"`
	Error               *string    `bun:"error"`
	DeliveryID          *int64     `bun:"delivery_id"`
	AutomationDeletedAt *time.Time `bun:"automation_deleted_at"`
}

// automationScope is where every automation query starts: the automations
// of one company, alias au.
func (s *Store) automationScope(db bun.IDB, companyID int64) *bun.SelectQuery {
	return db.NewSelect().Model((*automationRow)(nil)).Where("au.company_id = ?", companyID)
}

// automationQuery is automationScope with every column and the run count
// and last run time.
func (s *Store) automationQuery(db bun.IDB, companyID int64) *bun.SelectQuery {
	return s.automationScope(db, companyID).
		ColumnExpr("au.*").
		ColumnExpr("(SELECT COUNT(*) FROM automation_runs AS r WHERE r.automation_id = au.id) AS run_count").
		ColumnExpr("(SELECT MAX(r.fired_at) FROM automation_runs AS r WHERE r.automation_id = au.id) AS last_run_at")
}

func (s *Store) loadAutomation(ctx context.Context, db bun.IDB, companyID, id int64) (*automationRow, error) {
	row := new(automationRow)
	if err := s.automationQuery(db, companyID).Where("au.id = ?", id).Scan(ctx, row); err != nil {
		return nil, dbError(err)
	}
	return row, nil
}

// CreateAutomation stores a new automation; a WEBHOOK automation gets its
// endpoint, signed with secret (see api.AutomationStore).
func (s *Store) CreateAutomation(ctx context.Context, companyID int64, spec api.AutomationSpec, secret string, max int) (*api.Automation, error) {
	var out *api.Automation
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockCompany(ctx, tx, companyID); err != nil {
			return err
		}
		if err := checkCap(ctx, s.automationScope(tx, companyID), max, "automations", "--max-automations"); err != nil {
			return err
		}
		if err := s.checkConditionTrainer(ctx, tx, companyID, spec); err != nil {
			return err
		}
		now := s.utcNow()
		row := &automationRow{CompanyID: companyID, CreatedAt: now, UpdatedAt: now}
		row.setSpec(spec)
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		if err := s.syncAutomationEndpoint(ctx, tx, nil, row, secret); err != nil {
			return err
		}
		out = row.toAPI()
		if row.ActionType == api.ActionWebhook {
			out.Secret = secret
		}
		return nil
	})
	return out, err
}

func (s *Store) checkConditionTrainer(ctx context.Context, db bun.IDB, companyID int64, spec api.AutomationSpec) error {
	if spec.TrainerID == nil {
		return nil
	}
	ok, err := s.isTrainer(ctx, db, companyID, *spec.TrainerID)
	if err != nil {
		return err
	}
	if !ok {
		return api.Invalid(api.CodeUnknownTrainer, "conditions.trainerId", "trainer %d is not a trainer of this company", *spec.TrainerID)
	}
	return nil
}

// syncAutomationEndpoint keeps the hidden endpoint of an automation in
// step with its action: created (signed with secret) when it becomes a
// WEBHOOK, its URL followed, deleted (with its deliveries) when it stops
// being one. It reports whether it created one.
func (s *Store) syncAutomationEndpoint(ctx context.Context, tx bun.Tx, before, after *automationRow, secret string) error {
	was := before != nil && before.ActionType == api.ActionWebhook
	is := after.ActionType == api.ActionWebhook
	switch {
	case is && !was:
		// The hidden endpoint's id is the automation's, negated: it takes
		// nothing of the public webhook ids' sequence (a company's first
		// webhook is 1 whatever automations came before), and two
		// automations never share one.
		w := &webhookRow{ID: -after.ID, CompanyID: after.CompanyID, URL: *after.URL, Events: "", Secret: secret, Enabled: true,
			CreatedAt: after.UpdatedAt, AutomationID: &after.ID}
		_, err := tx.NewInsert().Model(w).Exec(ctx)
		return err
	case is && was:
		_, err := tx.NewUpdate().Model((*webhookRow)(nil)).Set("url = ?", *after.URL).Where("w.automation_id = ?", after.ID).Exec(ctx)
		return err
	case was && !is:
		if err := s.settleRuns(ctx, tx, "r.automation_id = ?", []any{after.ID}, "the automation's action changed before the delivery finished"); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model((*webhookRow)(nil)).Where("w.automation_id = ?", after.ID).Exec(ctx)
		return err
	}
	return nil
}

// Automation returns one automation of the company and its spec.
func (s *Store) Automation(ctx context.Context, companyID, id int64) (*api.Automation, api.AutomationSpec, error) {
	row, err := s.loadAutomation(ctx, s.db, companyID, id)
	if err != nil {
		return nil, api.AutomationSpec{}, err
	}
	return row.toAPI(), row.spec(), nil
}

// Automations returns one page of the company's automations by id
// (keyset: the id) and how many it has.
func (s *Store) Automations(ctx context.Context, companyID int64, q api.ListQuery) (api.ListPage[*api.Automation], error) {
	var (
		rows  []*automationRow
		total int64
	)
	err := s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if total, err = s.automationScope(tx, companyID).Count(ctx); err != nil {
			return err
		}
		return listWindow(s.automationQuery(tx, companyID), q, "au.id ASC", afterID("au.id", false)).Scan(ctx, &rows)
	})
	if err != nil {
		return api.ListPage[*api.Automation]{}, dbError(err)
	}
	return listRows(rows, q.Limit, total, (*automationRow).toAPI), nil
}

// UpdateAutomation replaces an automation's spec. An automation that
// becomes a WEBHOOK gets an endpoint signed with secret, which the result
// carries then (and only then).
func (s *Store) UpdateAutomation(ctx context.Context, companyID, id int64, spec api.AutomationSpec, secret string) (*api.Automation, error) {
	var out *api.Automation
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		before := new(automationRow)
		if err := s.forUpdate(s.automationScope(tx, companyID).Where("au.id = ?", id)).Scan(ctx, before); err != nil {
			return err
		}
		if err := s.checkConditionTrainer(ctx, tx, companyID, spec); err != nil {
			return err
		}
		after := *before
		after.setSpec(spec)
		after.UpdatedAt = s.utcNow()
		enabling := after.Enabled && !before.Enabled
		if enabling {
			after.DisabledReason = nil
		}
		if _, err := tx.NewUpdate().Model(&after).
			Column("name", "enabled", "trigger_type", "trigger_days", "trainer_id", "status", "action_type", "url", "updated_at", "disabled_reason").
			Where("au.id = ? AND au.company_id = ?", id, companyID).Exec(ctx); err != nil {
			return err
		}
		if err := s.syncAutomationEndpoint(ctx, tx, before, &after, secret); err != nil {
			return err
		}
		if enabling {
			markDeliveries(ctx) // what its endpoint had waiting is due
			// An automation the server disabled (410 Gone, a refused
			// URL) gets its endpoint back: its waiting deliveries go.
			if _, err := tx.NewUpdate().Model((*webhookRow)(nil)).Set("enabled = TRUE").Set("disabled_reason = NULL").
				Where("w.automation_id = ? AND w.company_id = ?", id, companyID).Exec(ctx); err != nil {
				return err
			}
		}
		row, err := s.loadAutomation(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		out = row.toAPI()
		if after.ActionType == api.ActionWebhook && before.ActionType != api.ActionWebhook {
			out.Secret = secret
		}
		return nil
	})
	return out, err
}

// DeleteAutomation deletes an automation, its endpoint and that endpoint's
// deliveries, and returns it as it was; its runs stay readable for
// api.RunRetention.
func (s *Store) DeleteAutomation(ctx context.Context, companyID, id int64) (*api.Automation, error) {
	var out *api.Automation
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.loadAutomation(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if err := s.settleRuns(ctx, tx, "r.automation_id = ? AND r.company_id = ?", []any{id, companyID}, "the automation was deleted before the delivery finished"); err != nil {
			return err
		}
		res, err := tx.NewDelete().Model((*automationRow)(nil)).Where("au.id = ? AND au.company_id = ?", id, companyID).Exec(ctx)
		if err := affectedOne(res, err); err != nil {
			return err
		}
		_, err = tx.NewUpdate().Model((*automationRunRow)(nil)).
			Set("automation_deleted_at = ?", s.utcNow()).
			Where("r.automation_id = ? AND r.company_id = ?", id, companyID).
			Exec(ctx)
		out = row.toAPI()
		return err
	})
	return out, err
}

// runScope is where every query of a company's runs starts: the runs of
// one company, alias r.
func (s *Store) runScope(db bun.IDB, companyID int64) *bun.SelectQuery {
	return db.NewSelect().Model((*automationRunRow)(nil)).Where("r.company_id = ?", companyID)
}

// AutomationRuns returns one page of an automation's runs, newest first
// (keyset: the run id), and how many it has: of an automation of the
// company, or of one it deleted less than api.RunRetention ago. The
// outcome of a WEBHOOK run follows its delivery.
func (s *Store) AutomationRuns(ctx context.Context, companyID, id int64, q api.ListQuery) (api.ListPage[*api.AutomationRun], error) {
	var (
		rows  []*api.AutomationRun // bun's names of its fields are the columns'
		total int64
	)
	cutoff := s.utcNow().Add(-api.RunRetention)
	err := s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		scope := func() *bun.SelectQuery {
			return s.runScope(tx, companyID).
				Where("r.automation_id = ?", id).
				Where("(r.automation_deleted_at IS NULL OR r.automation_deleted_at > ?)", cutoff)
		}
		var err error
		if total, err = scope().Count(ctx); err != nil {
			return err
		}
		if total == 0 {
			ok, err := s.automationScope(tx, companyID).Where("au.id = ?", id).Exists(ctx)
			if err != nil {
				return err
			}
			if !ok {
				return api.ErrNotFound
			}
			return nil
		}
		sel := scope().
			ColumnExpr("r.id, r.automation_id, r.trainee_id, r.fired_at, r.occurrence").
			ColumnExpr(`CASE WHEN d.id IS NULL THEN r.outcome WHEN d.status = ? THEN ? WHEN d.status = ? THEN ? ELSE ? END AS outcome`,
				api.DeliverySucceeded, api.OutcomeDelivered, api.DeliveryFailed, api.OutcomeFailed, api.OutcomePending).
			ColumnExpr(`COALESCE(r.error, (SELECT a.error FROM webhook_attempts AS a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1)) AS error`).
			Join("LEFT JOIN webhook_deliveries AS d ON d.id = r.delivery_id")
		return listWindow(sel, q, "r.id DESC", afterID("r.id", true)).Scan(ctx, &rows)
	})
	if err != nil {
		return api.ListPage[*api.AutomationRun]{}, dbError(err)
	}
	return listRows(rows, q.Limit, total, func(r *api.AutomationRun) *api.AutomationRun {
		r.FiredAt = r.FiredAt.UTC()
		return r
	}), nil
}

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

// fireEventAutomations fires the company's enabled automations whose
// trigger is the event's, inside the change's transaction: a change that
// rolls back fires nothing, and the run's unique occurrence (the event id)
// fires each once.
func (s *Store) fireEventAutomations(ctx context.Context, tx bun.Tx, ch *traineeChange, eventType, eventID string, now time.Time) error {
	trigger := api.TriggerOfEvent(eventType)
	if trigger == "" {
		return nil
	}
	var autos []*automationRow
	err := s.selectHot(ctx, tx, eventAutomationsQuery, &autos, ch.After.CompanyID, trigger)
	if err != nil || len(autos) == 0 {
		return err
	}
	var today api.Date
	for _, a := range autos {
		if a.Status != nil && today.IsZero() {
			loc, err := s.companyLocation(ctx, tx, ch.After.CompanyID)
			if err != nil {
				return err
			}
			today = api.Today(now, loc)
		}
		if !eventMatches(a, ch.After, today) {
			continue
		}
		run := &automationRunRow{CompanyID: a.CompanyID, AutomationID: a.ID, TraineeID: ch.After.ID, Occurrence: "event:" + eventID,
			FiredAt: now, Outcome: initialOutcome(a)}
		var ids []int64
		err := tx.NewInsert().Model(run).On("CONFLICT (automation_id, trainee_id, occurrence) DO NOTHING").Returning("id").Scan(ctx, &ids)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			continue
		}
		run.ID = ids[0]
		if err := s.act(ctx, tx, a, run, ch.After, now, &ch.Deliveries); err != nil {
			return err
		}
		if a.ActionType == api.ActionDisableTrainee {
			ch.Disabled = true
		}
	}
	return nil
}

func initialOutcome(a *automationRow) string {
	if a.ActionType == api.ActionWebhook {
		return api.OutcomePending
	}
	return api.OutcomeDisabled
}

// act carries out a run's action inside tx: a WEBHOOK puts an
// automation.fired event in the outbox for the automation's endpoint; a
// DISABLE_TRAINEE soft-deletes the trainee as a DELETE would (its
// trainee.deleted event included). Deliveries it schedules are appended
// to deliveries.
func (s *Store) act(ctx context.Context, tx bun.Tx, a *automationRow, run *automationRunRow, t *api.Trainee, now time.Time, deliveries *[]int64) error {
	switch a.ActionType {
	case api.ActionWebhook:
		body, err := json.Marshal(api.AutomationFired{
			Type:      api.EventAutomationFired,
			Timestamp: now.Unix(),
			Data: api.AutomationFiredData{
				Automation: api.AutomationRef{ID: a.ID, Name: a.Name, Trigger: a.trigger()},
				Trainee:    t,
			},
		})
		if err != nil {
			return err
		}
		ev := &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: a.CompanyID, TraineeID: t.ID,
			Type: api.EventAutomationFired, Payload: string(body), CreatedAt: now}
		if err := s.insertEvent(ctx, tx, ev); err != nil {
			return err
		}
		var ids []int64
		err = tx.NewRaw(`INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
			SELECT ?, w.id, ?, 0, ?, ?, ? FROM webhooks AS w WHERE w.automation_id = ?
			RETURNING id`, ev.ID, api.DeliveryPending, now, now, now, a.ID).Scan(ctx, &ids)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return errors.New("store: WEBHOOK automation without its endpoint")
		}
		markDeliveries(ctx)
		*deliveries = append(*deliveries, ids...)
		_, err = tx.NewUpdate().Model((*automationRunRow)(nil)).Set("delivery_id = ?", ids[0]).Where("r.id = ?", run.ID).Exec(ctx)
		return err
	case api.ActionDisableTrainee:
		before, err := s.loadTrainee(ctx, tx, a.CompanyID, t.ID, true)
		if err != nil {
			return err
		}
		if !before.Enabled {
			_, err := tx.NewUpdate().Model((*automationRunRow)(nil)).Set("outcome = ?", api.OutcomeSkipped).Where("r.id = ?", run.ID).Exec(ctx)
			return err
		}
		after := before.clone()
		after.Enabled = false
		ch, err := s.saveTrainee(ctx, tx, before, after, "")
		if err != nil {
			return err
		}
		*deliveries = append(*deliveries, ch.Deliveries...)
		return nil
	}
	return nil
}

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

// ErrBusy is EvaluateAutomation's error when another evaluator holds the
// automation: it is being evaluated elsewhere.
var ErrBusy = errors.New("store: automation is being evaluated by another instance")

// advisoryAutomations is the high half of the advisory lock keys of
// automation evaluations (the low half is the automation id).
const advisoryAutomations = int64(0x11) << 48

// EvaluateAutomation fires one time-triggered automation of a company for
// at most batch trainees whose occurrence is due on the company's day at
// now (the evaluator's clock; what is recorded is stamped by the store's)
// and has not fired, in one transaction, and returns how many fired.
// Each run is inserted under the unique (automation, trainee, occurrence)
// constraint together with its action, so an occurrence fires once
// whatever the number of evaluators, restarts or clock jumps. On
// PostgreSQL the transaction holds an advisory lock on the automation: an
// evaluator that cannot take it gets ErrBusy and leaves the automation to
// the instance working on it. Only trainees with an id above after are
// looked at; the second result is the highest id fired (after when none),
// where the next batch of the same evaluation starts.
func (s *Store) EvaluateAutomation(ctx context.Context, companyID, id int64, now time.Time, batch int, after int64) (int, int64, error) {
	var (
		fired      int
		last       = after
		deliveries []int64
	)
	stamp := s.utcNow() // what is recorded; now only decides the company's day
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		fired, last, deliveries = 0, after, nil
		if s.dialect == DialectPostgres {
			var ok bool
			if err := tx.NewRaw("SELECT pg_try_advisory_xact_lock(?)", advisoryAutomations|id).Scan(ctx, &ok); err != nil {
				return err
			}
			if !ok {
				return ErrBusy
			}
		}
		a := new(automationRow) // without its run count: not needed here
		err := s.automationScope(tx, companyID).Where("au.id = ?", id).Scan(ctx, a)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if !a.Enabled || !api.IsTimeTrigger(a.TriggerType) {
			return nil
		}
		loc, err := s.companyLocation(ctx, tx, companyID)
		if err != nil {
			return err
		}
		m := s.matcher(a, api.Today(now, loc), loc)
		sel := m.where(s.traineeScope(tx, companyID)).
			Where("t.id > ?", after).
			ColumnExpr("t.company_id, ?, t.id, "+m.occurrence()+", "+s.timestampArg()+", ?", a.ID, stamp, initialOutcome(a)).
			OrderExpr("t.id ASC").
			Limit(int64(batch))
		head := "INSERT INTO automation_runs (company_id, automation_id, trainee_id, occurrence, fired_at, outcome)"
		tail := "ON CONFLICT (automation_id, trainee_id, occurrence) DO NOTHING RETURNING id, trainee_id"
		var runs []firedRun
		if s.dialect == DialectPostgres && a.ActionType == api.ActionWebhook {
			// One statement inserts the runs, each with the id its
			// delivery will have, and returns them with their trainees.
			sel = sel.ColumnExpr("nextval((SELECT pg_get_serial_sequence('webhook_deliveries', 'id'))::regclass)")
			head = "INSERT INTO automation_runs (company_id, automation_id, trainee_id, occurrence, fired_at, outcome, delivery_id)"
			if runs, err = s.insertRunsWithTrainees(ctx, tx, companyID, head, sel, tail+", delivery_id"); err != nil {
				return err
			}
		} else {
			if err := s.insertSelect(ctx, tx, head, sel, tail, &runs); err != nil {
				return err
			}
			if len(runs) > 0 {
				if err := s.loadFiredTrainees(ctx, tx, companyID, runs); err != nil {
					return err
				}
			}
		}
		if len(runs) == 0 {
			return nil
		}
		for _, r := range runs {
			last = max(last, r.TraineeID)
		}
		if a.ActionType == api.ActionWebhook {
			if deliveries, err = s.fireWebhooks(ctx, tx, a, runs, stamp); err != nil {
				return err
			}
		} else {
			for _, r := range runs {
				run := &automationRunRow{ID: r.ID, AutomationID: a.ID, TraineeID: r.TraineeID}
				if err := s.act(ctx, tx, a, run, r.trainee, stamp, &deliveries); err != nil {
					return err
				}
			}
		}
		fired = len(runs)
		return nil
	})
	if errors.Is(err, ErrBusy) {
		return 0, after, ErrBusy
	}
	if err != nil {
		return 0, after, err
	}
	return fired, last, nil
}

// firedRun is a run an evaluation inserted, with its trainee.
type firedRun struct {
	ID         int64  `bun:"id"`
	TraineeID  int64  `bun:"trainee_id"`
	DeliveryID *int64 `bun:"delivery_id"` // on PostgreSQL, chosen with the run

	trainee *api.Trainee
}

// loadFiredTrainees reads the trainees of runs, in one statement.
func (s *Store) loadFiredTrainees(ctx context.Context, tx bun.Tx, companyID int64, runs []firedRun) error {
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.TraineeID
	}
	var trainees []*traineeRow
	if err := s.traineeQuery(tx, companyID).Where("t.id IN (?)", bun.In(ids)).Scan(ctx, &trainees); err != nil {
		return err
	}
	byID := make(map[int64]*api.Trainee, len(trainees))
	for _, t := range trainees {
		byID[t.ID] = t.toAPI()
	}
	for i := range runs {
		runs[i].trainee = byID[runs[i].TraineeID]
	}
	return nil
}

// firedTraineeRow is a trainee read with the run just fired for it.
type firedTraineeRow struct {
	traineeRow `bun:",extend"`

	RunID         int64  `bun:"run_id,scanonly"`
	RunDeliveryID *int64 `bun:"run_delivery_id,scanonly"`
}

// insertRunsWithTrainees is insertSelect and loadFiredTrainees in one
// PostgreSQL statement: the insert is a data-modifying WITH, joined to the
// company's trainees. The runs come back in trainee id order.
func (s *Store) insertRunsWithTrainees(ctx context.Context, tx bun.Tx, companyID int64, head string, sel *bun.SelectQuery, tail string) ([]firedRun, error) {
	b, err := sel.AppendQuery(s.db.QueryGen(), nil)
	if err != nil {
		return nil, err
	}
	outer, err := s.traineeQuery(tx, companyID).
		ColumnExpr("fired.id AS run_id, fired.delivery_id AS run_delivery_id").
		Join("JOIN fired ON fired.trainee_id = t.id").
		OrderExpr("t.id ASC").
		AppendQuery(s.db.QueryGen(), nil)
	if err != nil {
		return nil, err
	}
	res, err := tx.QueryContext(ctx, "WITH fired AS ("+head+" "+string(b)+" "+tail+") "+string(outer))
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var rows []*firedTraineeRow
	if err := s.db.ScanRows(ctx, res, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	runs := make([]firedRun, len(rows))
	for i, r := range rows {
		runs[i] = firedRun{ID: r.RunID, TraineeID: r.ID, DeliveryID: r.RunDeliveryID, trainee: r.toAPI()}
	}
	return runs, nil
}

// fireWebhooks is act for a batch of runs of one WEBHOOK automation, in a
// few statements whatever the batch's size: the automation.fired events,
// their deliveries to the automation's endpoint, and (unless the runs
// already carry them, as on PostgreSQL) the runs' links to them.
func (s *Store) fireWebhooks(ctx context.Context, tx bun.Tx, a *automationRow, runs []firedRun, now time.Time) ([]int64, error) {
	var webhookID int64
	if err := tx.NewSelect().Model((*webhookRow)(nil)).Column("w.id").Where("w.automation_id = ?", a.ID).Scan(ctx, &webhookID); err != nil {
		return nil, fmt.Errorf("store: the endpoint of WEBHOOK automation %d: %w", a.ID, err)
	}
	ref := api.AutomationRef{ID: a.ID, Name: a.Name, Trigger: a.trigger()}
	evs := make([]*webhookEventRow, len(runs))
	for i, r := range runs {
		body, err := json.Marshal(api.AutomationFired{Type: api.EventAutomationFired, Timestamp: now.Unix(),
			Data: api.AutomationFiredData{Automation: ref, Trainee: r.trainee}})
		if err != nil {
			return nil, err
		}
		evs[i] = &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: a.CompanyID, TraineeID: r.TraineeID,
			Type: api.EventAutomationFired, Payload: string(body), CreatedAt: now}
	}
	if _, err := tx.NewInsert().Model(&evs).Exec(ctx); err != nil {
		return nil, err
	}
	linked := true
	ds := make([]*webhookDeliveryRow, len(evs))
	for i, ev := range evs {
		ds[i] = &webhookDeliveryRow{EventID: ev.ID, WebhookID: webhookID, Status: api.DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
		if runs[i].DeliveryID != nil {
			ds[i].ID = *runs[i].DeliveryID
		} else {
			linked = false
		}
	}
	if linked {
		// The ids are the runs' already: inserting them is all.
		if _, err := tx.NewInsert().Model(&ds).Returning("NULL").Exec(ctx); err != nil {
			return nil, err
		}
	} else if _, err := tx.NewInsert().Model(&ds).Exec(ctx); err != nil {
		return nil, err
	}
	ids := make([]int64, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	if linked {
		return ids, nil
	}
	var (
		when   strings.Builder
		args   []any
		runIDs = make([]int64, len(runs))
	)
	when.WriteString("CASE id")
	for i, d := range ds {
		when.WriteString(" WHEN ? THEN ?")
		args = append(args, runs[i].ID, d.ID)
		runIDs[i] = runs[i].ID
	}
	when.WriteString(" END")
	_, err := tx.NewUpdate().Model((*automationRunRow)(nil)).
		Set("delivery_id = "+when.String(), args...).
		Where("r.id IN (?)", bun.In(runIDs)).
		Exec(ctx)
	return ids, err
}

// settleRuns gives the WEBHOOK runs that where selects (alias r) their
// final outcome before their deliveries go (the endpoint deleted with its
// automation or its action, or the events pruned): delivered or failed as
// their delivery ended, dropped (with dropped as the error, unless an
// attempt left one) for a delivery still pending. The runs then no longer
// name a delivery, and keep their outcome and last error for as long as
// they are kept.
func (s *Store) settleRuns(ctx context.Context, db bun.IDB, where string, args []any, dropped string) error {
	_, err := db.NewUpdate().Model((*automationRunRow)(nil)).
		Set(`outcome = CASE (SELECT d.status FROM webhook_deliveries AS d WHERE d.id = r.delivery_id)
			WHEN ? THEN ? WHEN ? THEN ? ELSE ? END`,
			api.DeliverySucceeded, api.OutcomeDelivered, api.DeliveryFailed, api.OutcomeFailed, api.OutcomeDropped).
		Set(`error = COALESCE(r.error, (SELECT a.error FROM webhook_attempts AS a WHERE a.delivery_id = r.delivery_id ORDER BY a.attempt DESC LIMIT 1),
			CASE WHEN (SELECT d.status FROM webhook_deliveries AS d WHERE d.id = r.delivery_id) = ? THEN NULL ELSE ? END)`,
			api.DeliverySucceeded, dropped).
		Set("delivery_id = NULL").
		Where("r.delivery_id IS NOT NULL").
		Where(where, args...).
		Exec(ctx)
	return err
}

// PruneAutomationRuns deletes the runs of automations deleted before
// before, and returns how many went.
func (s *Store) PruneAutomationRuns(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.NewDelete().Model((*automationRunRow)(nil)).
		Where("r.automation_deleted_at < ?", before.UTC()).
		Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ExpirationCompanies lists the companies with an endpoint subscribed to
// trainee.expired: those whose expirations the evaluator records.
func (s *Store) ExpirationCompanies(ctx context.Context) ([]int64, error) {
	var out []int64
	err := s.db.NewSelect().Model((*webhookRow)(nil)).ColumnExpr("DISTINCT w.company_id").
		Where("w.automation_id IS NULL AND (',' || w.events || ',') LIKE ?", subscribedPattern(api.EventTraineeExpired)).
		OrderExpr("w.company_id ASC").
		Scan(ctx, &out)
	return out, err
}

// advisoryExpirations is the high half of the advisory lock keys of a
// company's trainee.expired evaluation.
const advisoryExpirations = int64(0x12) << 48

// RecordExpirations puts a trainee.expired event in the outbox for at most
// batch live trainees of the company whose expirationDate is the company's
// day at now (or was, within api.CatchUpDays, while no server ran), once
// per trainee and expirationDate, and returns how many. ErrBusy as
// EvaluateAutomation.
func (s *Store) RecordExpirations(ctx context.Context, companyID int64, now time.Time, batch int) (int, error) {
	var n int
	stamp := s.utcNow() // what is recorded; now only decides the company's day
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		if s.dialect == DialectPostgres {
			var ok bool
			if err := tx.NewRaw("SELECT pg_try_advisory_xact_lock(?)", advisoryExpirations|companyID).Scan(ctx, &ok); err != nil {
				return err
			}
			if !ok {
				return ErrBusy
			}
		}
		loc, err := s.companyLocation(ctx, tx, companyID)
		if err != nil {
			return err
		}
		today := api.Today(now, loc)
		sel := s.traineeScope(tx, companyID).
			ColumnExpr("t.company_id, t.id, t.expiration_date, "+s.timestampArg(), stamp).
			Where("t.enabled AND t.expiration_date BETWEEN ? AND ?", today.AddDays(-api.CatchUpDays).Int(), today.Int()).
			Where("NOT EXISTS (SELECT 1 FROM trainee_expirations AS x WHERE x.trainee_id = t.id AND x.expiration_date = t.expiration_date)").
			OrderExpr("t.id ASC").
			Limit(int64(batch))
		var ids []int64
		err = s.insertSelect(ctx, tx, "INSERT INTO trainee_expirations (company_id, trainee_id, expiration_date, created_at)",
			sel, "ON CONFLICT (trainee_id, expiration_date) DO NOTHING RETURNING trainee_id", &ids)
		if err != nil || len(ids) == 0 {
			return err
		}
		var trainees []*traineeRow
		if err := s.traineeQuery(tx, companyID).Where("t.id IN (?)", bun.In(ids)).OrderExpr("t.id ASC").Scan(ctx, &trainees); err != nil {
			return err
		}
		evs := make([]*webhookEventRow, len(trainees))
		for i, t := range trainees {
			body, err := json.Marshal(api.WebhookEvent{Type: api.EventTraineeExpired, Timestamp: stamp.Unix(),
				Data: api.WebhookData{Trainee: t.toAPI(), ChangedFields: []string{}}})
			if err != nil {
				return err
			}
			evs[i] = &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: companyID, TraineeID: t.ID,
				Type: api.EventTraineeExpired, Payload: string(body), CreatedAt: stamp}
		}
		if _, err = s.insertEvents(ctx, tx, companyID, evs, stamp); err != nil {
			return err
		}
		n = len(ids)
		return nil
	})
	if errors.Is(err, ErrBusy) {
		return 0, ErrBusy
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// insertSelect runs head, sel and tail as one INSERT ... SELECT statement
// (both databases take it without parentheses around the SELECT) and scans
// what it returns into dest.
func (s *Store) insertSelect(ctx context.Context, tx bun.Tx, head string, sel *bun.SelectQuery, tail string, dest any) error {
	b, err := sel.AppendQuery(s.db.QueryGen(), nil)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, head+" "+string(b)+" "+tail)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := s.db.ScanRows(ctx, rows, dest); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return rows.Err()
}

// timestampArg is a placeholder for an instant in a select list: typed on
// PostgreSQL, where an untyped literal would be text.
func (s *Store) timestampArg() string {
	if s.dialect == DialectPostgres {
		return "CAST(? AS TIMESTAMPTZ)"
	}
	return "?"
}
