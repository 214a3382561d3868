package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
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

// rule is what the rules (package rules) read of the automation.
func (a *automationRow) rule() *rules.Automation {
	return &rules.Automation{ID: a.ID, CompanyID: a.CompanyID, Name: a.Name, TriggerType: a.TriggerType, Days: a.TriggerDays,
		TrainerID: a.TrainerID, Status: a.Status, ActionType: a.ActionType}
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
		Action:     api.AutomationAction{URL: redactedPtr(a.URL)},
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
			ColumnExpr("r.id, r.automation_id, r.trainee_id, u.name AS trainee_name, r.fired_at, r.occurrence").
			ColumnExpr(`CASE WHEN d.id IS NULL THEN r.outcome WHEN d.status = ? THEN ? WHEN d.status = ? THEN ? ELSE ? END AS outcome`,
				api.DeliverySucceeded, api.OutcomeDelivered, api.DeliveryFailed, api.OutcomeFailed, api.OutcomePending).
			ColumnExpr(`COALESCE(r.error, (SELECT a.error FROM webhook_attempts AS a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1)) AS error`).
			Join("LEFT JOIN webhook_deliveries AS d ON d.id = r.delivery_id").
			Join("LEFT JOIN trainees AS t ON t.id = r.trainee_id AND t.company_id = r.company_id").
			Join("LEFT JOIN users AS u ON u.id = t.user_id")
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

// redactedPtr is a copy of u with its userinfo hidden (api.RedactURL).
func redactedPtr(u *string) *string {
	if u == nil {
		return nil
	}
	r := api.RedactURL(*u)
	return &r
}
