package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// Company self-service: the webhook routes of the public API, the event
// feed and the calling key. Every method takes the caller's company id and
// starts from webhookScope (or the events' company_id): another company's
// webhook or event is api.ErrNotFound, as another company's trainee is.

// webhookScope selects the webhooks of one company.
func (s *Store) webhookScope(db bun.IDB, companyID int64) *bun.SelectQuery {
	// An automation's own endpoint (automation_id set) is not one of the
	// company's webhooks: it is managed through its automation.
	return db.NewSelect().Model((*webhookRow)(nil)).Where("w.company_id = ? AND w.automation_id IS NULL", companyID)
}

// OnEvent registers fn, called (synchronously: it must not block) after a
// change that recorded an event has committed in this process, or, on
// PostgreSQL with a Listener, in another instance. companyID is
// AllCompanies (0) when any company may have new events. The feed's
// long-poll wakes its waiters with it.
func (s *Store) OnEvent(fn func(companyID int64)) {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	s.eventHooks = append(s.eventHooks, fn)
}

func (s *Store) notifyEvent(companyID int64) {
	s.hookMu.RLock()
	defer s.hookMu.RUnlock()
	for _, fn := range s.eventHooks {
		fn(companyID)
	}
}

// CurrentKey describes the calling key with its company.
func (s *Store) CurrentKey(ctx context.Context, companyID, keyID int64) (*api.CurrentKey, error) {
	var out api.CurrentKey
	err := s.keyScope(s.db, companyID).
		ColumnExpr("k.id, k.name, k.prefix, k.scope, k.company_id, c.name AS company_name, c.time_zone, k.created_at").
		ColumnExpr("k.trainer_id, tu.name AS trainer_name, k.own_trainees_only, k.expires_at").
		Join("JOIN companies AS c ON c.id = k.company_id").
		Join("LEFT JOIN trainers AS tr ON tr.id = k.trainer_id").
		Join("LEFT JOIN users AS tu ON tu.id = tr.user_id").
		Where("k.id = ?", keyID).
		Scan(ctx, &out.ID, &out.Name, &out.Prefix, &out.Scope, &out.CompanyID, &out.CompanyName, &out.TimeZone, &out.CreatedAt,
			&out.TrainerID, &out.TrainerName, &out.OwnTraineesOnly, &out.ExpiresAt)
	if err != nil {
		return nil, dbError(err)
	}
	out.CreatedAt = out.CreatedAt.UTC()
	out.ExpiresAt = utcPtr(out.ExpiresAt)
	return &out, nil
}

// Webhook returns one endpoint of a company, without its secrets.
func (s *Store) Webhook(ctx context.Context, companyID, id int64) (*api.Webhook, error) {
	return s.webhook(ctx, s.db, companyID, id)
}

func (s *Store) webhook(ctx context.Context, db bun.IDB, companyID, id int64) (*api.Webhook, error) {
	row := new(webhookRow)
	err := s.webhookScope(db, companyID).
		Model(row).
		ExcludeColumn("secret", "previous_secret").
		Where("w.id = ?", id).
		Scan(ctx)
	if err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(), nil
}

// UpdateWebhook changes an endpoint's URL, events or state. Enabling it
// wakes the dispatcher: its waiting deliveries go at once.
func (s *Store) UpdateWebhook(ctx context.Context, companyID, id int64, p api.WebhookPatch) (*api.Webhook, error) {
	if p.URL != nil {
		if err := api.ValidateURL("url", *p.URL); err != nil {
			return nil, err
		}
	}
	if p.Events != nil {
		if _, err := api.ParseWebhookEvents(strings.Join(p.Events, ",")); err != nil || len(p.Events) == 0 {
			return nil, api.Invalid(api.CodeInvalidEnum, "events", "events must list known event types")
		}
	}
	var out *api.Webhook
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := s.webhook(ctx, tx, companyID, id); err != nil {
			return err
		}
		q := tx.NewUpdate().Model((*webhookRow)(nil)).Where("w.company_id = ?", companyID).Where("w.id = ?", id)
		set := false
		if p.URL != nil {
			q, set = q.Set("url = ?", *p.URL), true
		}
		if p.Events != nil {
			q, set = q.Set("events = ?", strings.Join(p.Events, ",")), true
		}
		if p.Enabled != nil {
			q, set = q.Set("enabled = ?", *p.Enabled).Set("disabled_reason = NULL"), true
			if *p.Enabled {
				markDeliveries(ctx) // its waiting deliveries are due
			}
		}
		if set {
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		var err error
		out, err = s.webhook(ctx, tx, companyID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteCompanyWebhook deletes an endpoint of a company with its
// deliveries and their attempts.
func (s *Store) DeleteCompanyWebhook(ctx context.Context, companyID, id int64) error {
	res, err := s.db.NewDelete().Model((*webhookRow)(nil)).Where("w.company_id = ?", companyID).Where("w.id = ?", id).Exec(ctx)
	return affectedOne(res, err)
}

// CompanyWebhookAttempts returns one page of the attempts of an endpoint
// of a company, newest first (as WebhookAttempts orders them), by keyset:
// a cursor names (delivery id, attempt), attempt 0 for a delivery not
// attempted yet.
func (s *Store) CompanyWebhookAttempts(ctx context.Context, companyID, id int64, q api.ListQuery) (api.ListPage[*api.WebhookAttempt], error) {
	ok, err := s.webhookScope(s.db, companyID).Where("w.id = ?", id).Exists(ctx)
	if err != nil {
		return api.ListPage[*api.WebhookAttempt]{}, err
	}
	if !ok {
		return api.ListPage[*api.WebhookAttempt]{}, api.ErrNotFound
	}
	out, err := s.webhookAttempts(ctx, id, q)
	if err != nil {
		return api.ListPage[*api.WebhookAttempt]{}, err
	}
	return listRows(out, q.Limit, 0, func(a *api.WebhookAttempt) *api.WebhookAttempt { return a }), nil
}

// RotateWebhookSecret makes secret an endpoint's secret; the one it
// replaces keeps signing, beside it, for keepFor from now (0 drops it at
// once; a rotation during another rotation drops the oldest secret). It
// returns the endpoint and when the old secret stops signing.
func (s *Store) RotateWebhookSecret(ctx context.Context, companyID, id int64, secret string, keepFor time.Duration) (*api.Webhook, time.Time, error) {
	if _, err := api.WebhookKey(secret); err != nil {
		return nil, time.Time{}, err
	}
	keepUntil := s.utcNow().Add(keepFor)
	var wh *api.Webhook
	// One transaction, so that inside an idempotent request (which holds
	// the write lock) the update and the read join it.
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().
			Model((*webhookRow)(nil)).
			Set("previous_secret = secret").
			Set("previous_secret_expires_at = ?", keepUntil.UTC()).
			Set("secret = ?", secret).
			Where("w.company_id = ?", companyID).
			Where("w.id = ?", id).
			Exec(ctx)
		if err := affectedOne(res, err); err != nil {
			return err
		}
		wh, err = s.webhook(ctx, tx, companyID, id)
		return err
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	return wh, keepUntil, nil
}

// WebhookTarget returns an endpoint's URL and the secrets that sign for it
// now.
func (s *Store) WebhookTarget(ctx context.Context, companyID, id int64) (*api.WebhookTarget, error) {
	row := new(webhookRow)
	if err := s.webhookScope(s.db, companyID).Model(row).Where("w.id = ?", id).Scan(ctx); err != nil {
		return nil, dbError(err)
	}
	return &api.WebhookTarget{URL: row.URL, Secrets: signingSecrets(row.Secret, row.PreviousSecret, row.PreviousUntil, s.utcNow())}, nil
}

// RedeliverCompanyEvent is Redeliver for an event of one company; it
// returns how many deliveries it scheduled (0 when no endpoint is
// subscribed to the event's type).
func (s *Store) RedeliverCompanyEvent(ctx context.Context, companyID int64, eventID string) (int, error) {
	ids, err := s.redeliver(ctx, &companyID, eventID)
	if errors.Is(err, ErrNoSubscriber) {
		return 0, nil
	}
	return len(ids), err
}

// Events returns a company's events after q.After (or q.AfterSeq) by id,
// newest first with q.Desc, at most q.Limit, of q.Types only when it is
// set. A company's event ids are
// taken in commit order (one writer on SQLite, recordEvent's advisory lock
// on PostgreSQL), so an event never appears behind a cursor already handed
// out.
func (s *Store) Events(ctx context.Context, companyID int64, q api.EventQuery) ([]*api.Event, error) {
	sel := s.db.NewSelect().
		Model((*webhookEventRow)(nil)).
		ColumnExpr("e.id, e.public_id, e.type, e.created_at, e.payload, e.actor_type, e.actor_id").
		// The actor's name as it is now, of the company's own key (the
		// trainer's, for a key bound to one) or automation (NULL when it
		// has since been deleted).
		ColumnExpr("COALESCE(tu.name, k.name, au.name) AS actor_name, k.trainer_id AS actor_trainer_id").
		Join("LEFT JOIN api_keys AS k ON e.actor_type = ? AND k.id = e.actor_id AND k.company_id = e.company_id", api.ActorKey).
		Join("LEFT JOIN trainers AS tr ON tr.id = k.trainer_id").
		Join("LEFT JOIN users AS tu ON tu.id = tr.user_id").
		Join("LEFT JOIN automations AS au ON e.actor_type = ? AND au.id = e.actor_id AND au.company_id = e.company_id", api.ActorAutomation).
		Where("e.company_id = ?", companyID).
		// automation.fired events go to their automation's endpoint
		// only; the feed carries the company's webhook events.
		Where("e.type <> ?", api.EventAutomationFired)
	after := q.AfterSeq
	if q.After != "" {
		err := s.db.NewSelect().
			Model((*webhookEventRow)(nil)).
			Column("e.id").
			Where("e.company_id = ?", companyID).
			Where("e.public_id = ?", q.After).
			Scan(ctx, &after)
		if errors.Is(dbError(err), api.ErrNotFound) {
			return nil, api.UnknownEvent()
		}
		if err != nil {
			return nil, err
		}
	}
	order := "e.id ASC"
	if q.Desc {
		order = "e.id DESC"
	}
	if after > 0 {
		sel = afterID("e.id", q.Desc)(sel, []int64{after})
	}
	if len(q.Types) > 0 && len(q.Types) < len(api.FeedEventTypes) {
		sel = sel.Where("e.type IN (?)", bun.In(q.Types))
	}
	if q.TrainerID != nil {
		// A key limited to its trainer's trainees: the events of the
		// trainees that trainer has now, and nothing else.
		own := s.traineeScope(s.db, companyID).Column("t.id").Where("t.trainer_id = ?", *q.TrainerID)
		sel = sel.Where("e.trainee_id IN (?)", own)
	}
	var rows []struct {
		ID           int64     `bun:"id"`
		PublicID     string    `bun:"public_id"`
		Type         string    `bun:"type"`
		CreatedAt    time.Time `bun:"created_at"`
		Payload      string    `bun:"payload"`
		ActorType    *string   `bun:"actor_type"`
		ActorID      *int64    `bun:"actor_id"`
		ActorName    *string   `bun:"actor_name"`
		ActorTrainer *int64    `bun:"actor_trainer_id"`
	}
	if err := sel.OrderExpr(order).Limit(int64(q.Limit)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]*api.Event, len(rows))
	for i, r := range rows {
		out[i] = &api.Event{ID: r.PublicID, Type: r.Type, CreatedAt: r.CreatedAt.UTC(), Payload: []byte(r.Payload), Seq: r.ID,
			Actor: eventActor(r.ActorType, r.ActorID, r.ActorName)}
		if out[i].Actor != nil {
			out[i].Actor.TrainerID = r.ActorTrainer
		}
	}
	return out, nil
}

// eventActor is an event's actor as the feed shows it: nil for an event
// written before actors were recorded.
func eventActor(typ *string, id *int64, name *string) *api.Actor {
	if typ == nil {
		return nil
	}
	a := &api.Actor{Type: *typ}
	if id != nil {
		a.ID = *id
	}
	if name != nil {
		a.Name = *name
	}
	return a
}

// LatestEventID returns the id of the company's latest event (0 when it
// has none). A company's ids are taken in commit order, so it changes
// exactly when an event of the company commits: the feed's long-poll polls
// it, one indexed read per company with waiting requests.
func (s *Store) LatestEventID(ctx context.Context, companyID int64) (int64, error) {
	var id int64
	err := s.db.NewSelect().
		Model((*webhookEventRow)(nil)).
		ColumnExpr("COALESCE(MAX(e.id), 0)").
		Where("e.company_id = ?", companyID).
		Scan(ctx, &id)
	return id, err
}
