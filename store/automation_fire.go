package store

// The automations' firing, as writes: what the rules (package rules)
// decide is inserted here, with a trainee's change (fireEventAutomations,
// in the change's transaction, after the outbox's event) and by the
// evaluator in set-based batches (EvaluateAutomation, RecordExpirations),
// each run under its unique occurrence with its action (act,
// fireWebhooks) in the same transaction.

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
	"github.com/traineed/traineed/api/rules"
)

// fireRun inserts the run of a firing under its unique occurrence and
// carries out its action (act); an occurrence that fired already does
// nothing.
func (s *Store) fireRun(ctx context.Context, tx bun.Tx, f rules.Firing, t *api.Trainee, now time.Time, ch *traineeChange) error {
	run := &automationRunRow{CompanyID: f.Automation.CompanyID, AutomationID: f.Automation.ID, TraineeID: t.ID,
		Occurrence: f.Occurrence, FiredAt: now, Outcome: f.Outcome}
	var ids []int64
	err := tx.NewInsert().Model(run).On("CONFLICT (automation_id, trainee_id, occurrence) DO NOTHING").Returning("id").Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return err // or fired already
	}
	return s.act(ctx, tx, f, ids[0], t, now, ch)
}

// act carries out a run's action inside tx: a WEBHOOK puts an
// automation.fired event (rules.Fired) in the outbox for the automation's
// endpoint, its deliveries added to ch's; a DISABLE_TRAINEE is a verdict,
// not a write: it is added to ch's, and the trainee code settles it
// (settleDisables, by rules.Settle), so that the rules never call back
// into the trainee code that called them.
func (s *Store) act(ctx context.Context, tx bun.Tx, f rules.Firing, runID int64, t *api.Trainee, now time.Time, ch *traineeChange) error {
	if v, ok := f.Verdict(runID); ok {
		ch.verdicts = append(ch.verdicts, v)
		return nil
	}
	if f.Automation.ActionType != api.ActionWebhook {
		return nil
	}
	a := f.Automation
	if f.Event == nil {
		return errors.New("store: WEBHOOK firing without its event") // rules.OnEvent gives it one
	}
	body, err := json.Marshal(f.Event)
	if err != nil {
		return err
	}
	ev := &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: a.CompanyID, TraineeID: t.ID,
		Type: api.EventAutomationFired, Payload: string(body), CreatedAt: now}
	if err := s.writeEvent(api.WithActor(ctx, a.Actor()), tx, ev); err != nil {
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
	ch.Deliveries = append(ch.Deliveries, ids...) // markChange marks them
	_, err = tx.NewUpdate().Model((*automationRunRow)(nil)).Set("delivery_id = ?", ids[0]).Where("r.id = ?", runID).Exec(ctx)
	return err
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
	var runs []firedRun
	stamp := s.utcNow() // what is recorded; now only decides the company's day
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		runs = nil
		if err := s.tryLock(ctx, tx, advisoryAutomations|id); err != nil {
			return err
		}
		a := new(automationRow) // without its run count: not needed here
		err := s.automationScope(tx, companyID).Where("au.id = ?", id).Scan(ctx, a)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // deleted meanwhile
		}
		if err != nil || !a.Enabled || !api.IsTimeTrigger(a.TriggerType) {
			return err
		}
		if runs, err = s.insertDueRuns(ctx, tx, a, now, stamp, batch, after); err != nil || len(runs) == 0 {
			return err
		}
		if a.ActionType == api.ActionWebhook {
			_, err = s.fireWebhooks(ctx, tx, a, runs, stamp)
			return err
		}
		f := rules.Firing{Automation: a.rule()}
		for _, r := range runs {
			row, err := s.loadTrainee(ctx, tx, companyID, r.TraineeID, true) // what the verdict settles on
			if err != nil {
				return err
			}
			ch := &traineeChange{stored: row}
			if err := s.act(ctx, tx, f, r.ID, r.trainee, stamp, ch); err != nil {
				return err
			}
			if err := s.settleDisables(ctx, tx, ch); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, after, err
	}
	last := after
	for _, r := range runs {
		last = max(last, r.TraineeID)
	}
	return len(runs), last, nil
}

// tryLock takes the transaction-scoped advisory lock key on PostgreSQL,
// or answers ErrBusy when another instance holds it; SQLite's write
// transactions already run one at a time.
func (s *Store) tryLock(ctx context.Context, tx bun.Tx, key int64) error {
	if s.dialect != DialectPostgres {
		return nil
	}
	var ok bool
	if err := tx.NewRaw("SELECT pg_try_advisory_xact_lock(?)", key).Scan(ctx, &ok); err != nil {
		return err
	}
	if !ok {
		return ErrBusy
	}
	return nil
}

// insertDueRuns inserts, in one statement, the runs of automation a due
// for the company's trainees above after, at most batch of them, each
// under its unique occurrence (one that fired already is skipped), and
// returns them with their trainees. On PostgreSQL a WEBHOOK's runs carry
// the ids their deliveries will have.
func (s *Store) insertDueRuns(ctx context.Context, tx bun.Tx, a *automationRow, now, stamp time.Time, batch int, after int64) ([]firedRun, error) {
	loc, err := s.companyLocation(ctx, tx, a.CompanyID)
	if err != nil {
		return nil, err
	}
	m := s.matcher(a, api.Today(now, loc), loc)
	sel := m.where(s.traineeScope(tx, a.CompanyID)).
		Where("t.id > ?", after).
		ColumnExpr("t.company_id, ?, t.id, "+m.occurrence()+", "+s.timestampArg()+", ?", a.ID, stamp, rules.InitialOutcome(a.rule())).
		OrderExpr("t.id ASC").
		Limit(int64(batch))
	head := "INSERT INTO automation_runs (company_id, automation_id, trainee_id, occurrence, fired_at, outcome)"
	tail := "ON CONFLICT (automation_id, trainee_id, occurrence) DO NOTHING RETURNING id, trainee_id"
	if s.dialect == DialectPostgres && a.ActionType == api.ActionWebhook {
		sel = sel.ColumnExpr("nextval((SELECT pg_get_serial_sequence('webhook_deliveries', 'id'))::regclass)")
		head = "INSERT INTO automation_runs (company_id, automation_id, trainee_id, occurrence, fired_at, outcome, delivery_id)"
		return s.insertRunsWithTrainees(ctx, tx, a.CompanyID, head, sel, tail+", delivery_id")
	}
	var runs []firedRun
	if err := s.insertSelect(ctx, tx, head, sel, tail, &runs); err != nil || len(runs) == 0 {
		return nil, err
	}
	return runs, s.loadFiredTrainees(ctx, tx, a.CompanyID, runs)
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
	rule := a.rule()
	by := api.WithActor(ctx, rule.Actor())
	evs := make([]*webhookEventRow, len(runs))
	for i, r := range runs {
		body, err := json.Marshal(rules.Fired(rule, r.trainee, now))
		if err != nil {
			return nil, err
		}
		evs[i] = &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: a.CompanyID, TraineeID: r.TraineeID,
			Type: api.EventAutomationFired, Payload: string(body), CreatedAt: now}
		stampActor(evs[i], api.ActorFrom(by))
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
	// The evaluator's events are the system's, whoever calls.
	ctx = api.WithActor(ctx, api.Actor{Type: api.ActorSystem})
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		if err := s.tryLock(ctx, tx, advisoryExpirations|companyID); err != nil {
			return err
		}
		loc, err := s.companyLocation(ctx, tx, companyID)
		if err != nil {
			return err
		}
		window := rules.ExpiryWindow(api.Today(now, loc))
		sel := s.traineeScope(tx, companyID).
			ColumnExpr("t.company_id, t.id, t.expiration_date, "+s.timestampArg(), stamp).
			Where("t.enabled AND t.expiration_date BETWEEN ? AND ?", window.From.Int(), window.To.Int()).
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
