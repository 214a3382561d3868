package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// feedLockClass is the first key of the advisory lock that orders a
// company's events (pg_advisory_xact_lock(feedLockClass, company)).
const feedLockClass = 0x74726e64 // "trnd"

// companyLockKey folds a company id into the lock's int4 second key; two
// companies sharing a key only wait for one another.
func companyLockKey(companyID int64) int32 { return int32(companyID % (1 << 31)) }

// stampActor records on ev the actor a (api.ActorFrom of the change's
// context: the system when none), unless ev has one already.
func stampActor(ev *webhookEventRow, a api.Actor) {
	if ev.ActorType != nil {
		return
	}
	ev.ActorType = &a.Type
	if a.ID != 0 {
		ev.ActorID = &a.ID
	}
}

// insertEvent writes an event row other than a change's own (recordEvent):
// the evaluator's trainee.expired, an automation's automation.fired, with
// ctx's actor unless it has one. On PostgreSQL it first takes the
// company's feed lock, as recordEvent does, so that the feed's ids stay in
// commit order whoever writes the event.
func (s *Store) insertEvent(ctx context.Context, tx bun.Tx, ev *webhookEventRow) error {
	markEvent(ctx, ev.CompanyID)
	return s.writeEvent(ctx, tx, ev)
}

// writeEvent is insertEvent without the mark, for a change's automations,
// whose events markChange marks with the change's.
func (s *Store) writeEvent(ctx context.Context, tx bun.Tx, ev *webhookEventRow) error {
	stampActor(ev, api.ActorFrom(ctx))
	if ev.Traceparent == nil {
		ev.Traceparent = traceparent(ctx)
	}
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, ?)", feedLockClass, companyLockKey(ev.CompanyID)); err != nil {
			return err
		}
	}
	_, err := tx.NewInsert().Model(ev).Exec(ctx)
	return err
}

// insertEvents is insertEvent and scheduleDeliveries for events of one
// type and company, in three statements whatever their number: the feed
// lock, the events, and their deliveries to every subscribed endpoint.
// Each event gets ctx's actor unless it has one.
func (s *Store) insertEvents(ctx context.Context, tx bun.Tx, companyID int64, evs []*webhookEventRow, now time.Time) ([]int64, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	tp := traceparent(ctx)
	for _, ev := range evs {
		stampActor(ev, api.ActorFrom(ctx))
		if ev.Traceparent == nil {
			ev.Traceparent = tp
		}
	}
	markEvent(ctx, companyID)
	if s.dialect == DialectPostgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, ?)", feedLockClass, companyLockKey(companyID)); err != nil {
			return nil, err
		}
	}
	if _, err := tx.NewInsert().Model(&evs).Exec(ctx); err != nil {
		return nil, err
	}
	lock := ""
	if s.dialect == DialectPostgres {
		lock = "FOR KEY SHARE OF w" // as scheduleDeliveries
	}
	ids := make([]int64, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	var out []int64
	err := tx.NewRaw(`INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT e.id, w.id, ?, 0, ?, ?, ?
		FROM webhooks AS w JOIN webhook_events AS e ON e.id IN (?)
		WHERE w.company_id = ? AND (',' || w.events || ',') LIKE ?
		ORDER BY e.id, w.id
		`+lock+`
		RETURNING id`,
		api.DeliveryPending, now, now, now, bun.In(ids), companyID, subscribedPattern(evs[0].Type)).
		Scan(ctx, &out)
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		markDeliveries(ctx)
	}
	return out, nil
}

// subscribedPattern matches ',' || webhooks.events || ',' when the list
// holds typ.
func subscribedPattern(typ string) string { return "%," + typ + ",%" }

// scheduleDeliveries adds a delivery of ev, due at now, for every endpoint
// of ev's company subscribed to its type, and returns their ids. Disabled
// endpoints get theirs too: they wait until the endpoint is enabled.
func (s *Store) scheduleDeliveries(ctx context.Context, tx bun.Tx, ev *webhookEventRow, now time.Time) ([]int64, error) {
	text, match := scheduleDeliveriesSQLite, ","+ev.Type+","
	if s.dialect == DialectPostgres {
		text, match = scheduleDeliveriesPostgres, subscribedPattern(ev.Type)
	}
	var ids []int64
	if err := s.scanHot(ctx, tx, text, &ids, ev.ID, api.DeliveryPending, s.timeArg(now), ev.CompanyID, match); err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		markDeliveries(ctx)
	}
	return ids, nil
}

// scheduleDeliveries' statement: event $1, status $2, due and created at
// $3, for the endpoints of company $4 whose events hold the type: on SQLite
// $5 is ",type," found by instr, since SQLite prepares a statement again
// each time a LIKE's pattern is bound (the pattern could change its plan);
// on PostgreSQL it is subscribedPattern.
const (
	scheduleDeliveriesSQLite = `INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
	SELECT $1, w.id, $2, 0, $3, $3, $3
	FROM webhooks AS w
	WHERE w.company_id = $4 AND instr(',' || w.events || ',', $5) > 0
	RETURNING id`
	// An endpoint deleted by a concurrent transaction must not make this
	// one fail on the deliveries' foreign key: the rows are held.
	scheduleDeliveriesPostgres = `INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
	SELECT $1::bigint, w.id, $2::text, 0, $3::timestamptz, $3::timestamptz, $3::timestamptz
	FROM webhooks AS w
	WHERE w.company_id = $4::bigint AND (',' || w.events || ',') LIKE $5::text
	FOR KEY SHARE OF w
	RETURNING id`
)

// CreateWebhook adds an endpoint to a company: url must pass api.ValidateURL,
// events a non-empty list of known types, secret a whsec_ secret.
// api.ErrNotFound when the company does not exist. It is the operator's
// (traineed webhook add): no cap applies.
func (s *Store) CreateWebhook(ctx context.Context, companyID int64, url string, events []string, secret string) (*api.Webhook, error) {
	return s.CreateWebhookEnabled(ctx, companyID, api.NewWebhook{URL: url, Events: events, Secret: secret, Enabled: true}, 0)
}

// CreateWebhookEnabled is CreateWebhook with the endpoint's state (a
// disabled endpoint's deliveries wait until it is enabled) and a cap: a
// company with max endpoints already (max > 0) gets api.LimitReached.
func (s *Store) CreateWebhookEnabled(ctx context.Context, companyID int64, nw api.NewWebhook, max int) (*api.Webhook, error) {
	if err := api.ValidateURL("url", nw.URL); err != nil {
		return nil, err
	}
	list, err := api.ParseWebhookEvents(strings.Join(nw.Events, ","))
	if err != nil {
		return nil, err
	}
	if _, err := api.WebhookKey(nw.Secret); err != nil {
		return nil, err
	}
	var out *api.Webhook
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockCompany(ctx, tx, companyID); err != nil {
			return err
		}
		if err := checkCap(ctx, s.webhookScope(tx, companyID), max, "webhooks", "--max-webhooks"); err != nil {
			return err
		}
		row := &webhookRow{CompanyID: companyID, URL: nw.URL, Events: strings.Join(list, ","), Secret: nw.Secret, Enabled: nw.Enabled, CreatedAt: s.utcNow()}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		out = row.toAPI()
		return nil
	})
	return out, err
}

// Webhooks lists a company's endpoints by id, without their secrets.
func (s *Store) Webhooks(ctx context.Context, companyID int64) ([]*api.Webhook, error) {
	var rows []webhookRow
	err := s.db.NewSelect().
		Model(&rows).
		ExcludeColumn("secret", "previous_secret").
		Where("w.company_id = ? AND w.automation_id IS NULL", companyID).
		OrderExpr("w.id ASC").
		Scan(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*api.Webhook, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI()
	}
	return out, nil
}

// WebhookPage returns one page of a company's endpoints by id, without
// their secrets.
func (s *Store) WebhookPage(ctx context.Context, companyID int64, q api.ListQuery) (api.ListPage[*api.Webhook], error) {
	var rows []*webhookRow
	sel := s.webhookScope(s.db, companyID).Model(&rows).ExcludeColumn("secret", "previous_secret")
	if err := listWindow(sel, q, "w.id ASC", afterID("w.id", false)).Scan(ctx); err != nil {
		return api.ListPage[*api.Webhook]{}, dbError(err)
	}
	return listRows(rows, q.Limit, 0, (*webhookRow).toAPI), nil
}

// DeleteWebhook deletes an endpoint with its deliveries and their attempts;
// api.ErrNotFound when there is no such endpoint. A delivery in flight
// finishes but is not recorded.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	res, err := s.db.NewDelete().Model((*webhookRow)(nil)).Where("w.id = ? AND w.automation_id IS NULL", id).Exec(ctx)
	return affectedOne(res, err)
}

// SetWebhookDisabled pauses or resumes an endpoint: while it is disabled its
// deliveries (new ones included) wait, and none is attempted.
func (s *Store) SetWebhookDisabled(ctx context.Context, id int64, disabled bool) error {
	res, err := s.db.NewUpdate().
		Model((*webhookRow)(nil)).
		Set("enabled = ?", !disabled).
		Set("disabled_reason = NULL").
		Where("w.id = ? AND w.automation_id IS NULL", id).
		Exec(ctx)
	if err := affectedOne(res, err); err != nil {
		return err
	}
	s.committedAlone(!disabled) // enabled: its waiting deliveries are due
	return nil
}

// WebhookAttempts returns the most recent attempts of an endpoint's
// deliveries, newest delivery first and, within one, latest attempt first,
// at most limit rows. A delivery without attempts appears once, as attempt
// 0. api.ErrNotFound when there is no such endpoint.
func (s *Store) WebhookAttempts(ctx context.Context, webhookID int64, limit int) ([]*api.WebhookAttempt, error) {
	ok, err := s.db.NewSelect().Model((*webhookRow)(nil)).Where("w.id = ?", webhookID).Exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, api.ErrNotFound
	}
	out, err := s.webhookAttempts(ctx, webhookID, api.ListQuery{Limit: limit})
	return out[:min(len(out), limit)], err
}

// webhookAttempts reads the attempts of an endpoint that q asks for, in
// WebhookAttempts' order, one more than q.Limit (listWindow); the caller
// has checked the endpoint.
func (s *Store) webhookAttempts(ctx context.Context, webhookID int64, q api.ListQuery) ([]*api.WebhookAttempt, error) {
	var rows []struct {
		DeliveryID    int64      `bun:"delivery_id"`
		EventID       string     `bun:"event_id"`
		Type          string     `bun:"type"`
		TraineeID     *int64     `bun:"trainee_id"`
		TraineeName   *string    `bun:"trainee_name"`
		Status        string     `bun:"status"`
		NextAttemptAt time.Time  `bun:"next_attempt_at"`
		CreatedAt     time.Time  `bun:"created_at"`
		Attempt       *int       `bun:"attempt"`
		StartedAt     *time.Time `bun:"started_at"`
		StatusCode    *int       `bun:"status_code"`
		LatencyUS     *int64     `bun:"latency_us"`
		Error         *string    `bun:"error"`
		Response      *string    `bun:"response"`
	}
	sel := s.db.NewSelect().
		Model((*webhookDeliveryRow)(nil)).
		ColumnExpr("d.id AS delivery_id, e.public_id AS event_id, e.type, d.status, d.next_attempt_at, d.created_at").
		ColumnExpr("NULLIF(e.trainee_id, 0) AS trainee_id, u.name AS trainee_name").
		ColumnExpr("a.attempt, a.started_at, a.status_code, a.latency_us, a.error, a.response").
		Join("JOIN webhook_events AS e ON e.id = d.event_id").
		// The trainee's name as it is now: of the event's company only (an
		// erased trainee has no row: null).
		Join("LEFT JOIN trainees AS t ON t.id = e.trainee_id AND t.company_id = e.company_id").
		Join("LEFT JOIN users AS u ON u.id = t.user_id").
		Join("LEFT JOIN webhook_attempts AS a ON a.delivery_id = d.id").
		Where("d.webhook_id = ?", webhookID)
	// The keyset is (delivery id, attempt), both descending; a delivery
	// not attempted yet is one row, attempt 0.
	err := listWindow(sel, q, "d.id DESC, a.attempt DESC", func(sel *bun.SelectQuery, k []int64) *bun.SelectQuery {
		return sel.Where("d.id <= ? AND (d.id < ? OR COALESCE(a.attempt, 0) < ?)", k[0], k[0], k[1])
	}).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := make([]*api.WebhookAttempt, len(rows))
	for i, r := range rows {
		a := &api.WebhookAttempt{DeliveryID: r.DeliveryID, EventID: r.EventID, Type: r.Type, TraineeID: r.TraineeID, TraineeName: r.TraineeName, State: r.Status,
			StatusCode: r.StatusCode, Error: r.Error, Response: r.Response, Time: r.CreatedAt}
		if r.Status == api.DeliveryPending {
			a.NextAttemptAt = &r.NextAttemptAt
		}
		if r.Attempt != nil {
			a.Attempt = *r.Attempt
			a.Time = *r.StartedAt
			ms := float64(*r.LatencyUS) / 1000
			a.LatencyMs = &ms
		}
		out[i] = a
	}
	return out, nil
}

// ErrNoSubscriber is Redeliver's error when no endpoint of the event's
// company is subscribed to its type.
var ErrNoSubscriber = errors.New("no webhook of the event's company is subscribed to its type")

// Redeliver schedules a new delivery of an event (by its public id, the
// webhook-id its deliveries carry) to every current endpoint of its company
// subscribed to its type, due now, and returns their ids. The deliveries
// send the event as it was, with the same webhook-id, so a receiver that
// has processed it already ignores it. api.ErrNotFound for an unknown event.
func (s *Store) Redeliver(ctx context.Context, eventID string) ([]int64, error) {
	return s.redeliver(ctx, nil, eventID)
}

// redeliver is Redeliver of an event of companyID only, unless it is nil.
func (s *Store) redeliver(ctx context.Context, companyID *int64, eventID string) ([]int64, error) {
	var ids []int64
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		ev := new(webhookEventRow)
		q := tx.NewSelect().Model(ev).Where("e.public_id = ?", eventID)
		if companyID != nil {
			q = q.Where("e.company_id = ?", *companyID)
		}
		if err := q.Scan(ctx); err != nil {
			return err
		}
		var err error
		if ev.Type == api.EventAutomationFired {
			// An automation's event goes to the automation's endpoint again.
			now := s.utcNow()
			err = tx.NewRaw(`INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
				SELECT ?, w.id, ?, 0, ?, ?, ? FROM webhooks AS w
				WHERE w.automation_id IS NOT NULL AND w.id IN (SELECT d.webhook_id FROM webhook_deliveries AS d WHERE d.event_id = ?)
				RETURNING id`, ev.ID, api.DeliveryPending, now, now, now, ev.ID).Scan(ctx, &ids)
		} else {
			ids, err = s.scheduleDeliveries(ctx, tx, ev, s.utcNow())
		}
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return fmt.Errorf("%w (company %d, %s)", ErrNoSubscriber, ev.CompanyID, ev.Type)
		}
		markDeliveries(ctx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// PruneWebhookEvents deletes the events recorded before t whose deliveries
// are all finished (succeeded or failed), with those deliveries and their
// attempts, and returns how many events went.
func (s *Store) PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// The automations' runs keep their deliveries' outcomes.
		if err := s.settleRuns(ctx, tx, `r.delivery_id IN (SELECT d.id FROM webhook_deliveries AS d JOIN webhook_events AS e ON e.id = d.event_id
			WHERE e.created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS p WHERE p.event_id = e.id AND p.status = ?))`,
			[]any{before.UTC(), api.DeliveryPending}, "the event was pruned"); err != nil {
			return err
		}
		res, err := tx.NewDelete().
			Model((*webhookEventRow)(nil)).
			Where("e.created_at < ?", before.UTC()).
			Where("NOT EXISTS (SELECT 1 FROM webhook_deliveries AS d WHERE d.event_id = e.id AND d.status = ?)", api.DeliveryPending).
			Exec(ctx)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
