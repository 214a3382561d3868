package store

// A trainee's change, from its rows to its verdicts, in one transaction
// and one direction: saveTrainee and writeChange call each stage once, in
// order, and no stage calls another. The change's statements are built
// first and run as one batch (runSteps, in hot.go): a create's rows
// (insertTrainee; an update's are written by writeRows), the outbox's
// event and its deliveries (recordEvent), and the read of the company's
// automations of the event's trigger. The rules then fire those
// automations (fireEventAutomations, deciding by package rules), the
// verdicts they answer with are settled (settleDisables, in verdicts.go,
// by rules.Settle): a DISABLE_TRAINEE verdict is a second change of the
// same transaction, through writeChange again. Last, the change's effects
// are marked for the post-commit hook (markChange). Nothing in the rules
// calls back into the trainee code.

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
)

// traineeChange is one change of a trainee, committed with it.
type traineeChange struct {
	Before *api.Trainee // nil for a create
	After  *api.Trainee
	// Fields is api.ChangedFields(Before, After), or api.CreatedFields(After)
	// for a create, and "password" for a new password.
	Fields []string

	Deliveries []int64 // the webhook deliveries the change scheduled
	Recorded   bool    // an event went into the outbox (and the feed)
	// verdicts are the DISABLE_TRAINEE verdicts of the automations the
	// change fired, for settleDisables to apply.
	verdicts []rules.Verdict
	// stored is the trainee's row as the change leaves it stored: after,
	// or the disable's when a verdict soft-deleted it (saveTrainee).
	stored *traineeRow
}

// saveTrainee is the one function that writes trainee data, inside tx, and
// so the one that knows every change: before is nil for a create (after
// then gets its ids and passwordHash must be set); otherwise passwordHash ""
// keeps the stored one. A change that alters nothing writes nothing and
// returns a change without fields. Every change that writes records its
// webhook event in tx (the transactional outbox).
//
// A change passes through the trainee code, the outbox and the rules once
// each, in that order: the automations it fires answer with verdicts, and
// a DISABLE_TRAINEE verdict comes back here to be applied as a second
// change of the same transaction (settleDisables).
func (s *Store) saveTrainee(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string) (*traineeChange, error) {
	ch, err := s.writeChange(ctx, tx, before, after, passwordHash)
	if err != nil {
		return nil, err
	}
	ch.stored = after
	if err := s.settleDisables(ctx, tx, ch); err != nil {
		return nil, err
	}
	// Its effects, the verdicts' changes' included, are marked once for
	// the post-commit hook.
	markChange(ctx, ch)
	return ch, nil
}

// writeChange writes one change's rows, records its event in the outbox
// and fires the automations the rules fire for it: saveTrainee without
// the verdicts applied or the effects marked. A change that alters nothing
// does none of it.
//
// Its statements run as one batch (runSteps), built before any of it
// runs: a create's rows (an update's are written by writeRows), the event
// with its deliveries, and the read of the company's automations of the
// event's trigger, which the rules then decide on.
func (s *Store) writeChange(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string) (*traineeChange, error) {
	now := s.utcNow()
	ch, wrote, steps, err := s.writeRows(ctx, tx, before, after, passwordHash, now)
	if err != nil || !wrote {
		return ch, err
	}
	var (
		typ, eventID string
		autos        []*automationRow
		span         trace.Span // the outbox's, over the batch (tracing on)
	)
	batch := ctx
	if s.outbox {
		typ = ch.eventType()
		if s.tracer != nil {
			batch, span = s.outboxSpan(ctx, typ, after.CompanyID)
		}
		var event []hotStep
		eventID, event = s.recordEvent(batch, ch, after, typ, now)
		steps = append(steps, event...)
		// Automations fire from the same outbox write: with the change,
		// or not at all.
		if trigger := api.TriggerOfEvent(typ); trigger != "" {
			steps = append(steps, hotStep{q: eventAutomationsQuery, args: []any{after.CompanyID, trigger}, dest: &autos})
		}
	}
	err = s.runSteps(batch, tx, steps)
	if span != nil {
		endOutboxSpan(span, len(ch.Deliveries), err)
	}
	if err != nil {
		return nil, err
	}
	if before == nil {
		ch.After = after.toAPI() // with the ids the batch gave it
	}
	if !s.outbox {
		return ch, nil
	}
	if err := s.fireEventAutomations(ctx, tx, ch, autos, typ, eventID, now); err != nil {
		return nil, err
	}
	return ch, nil
}

// eventType is the webhook event of a change (contract section 7).
func (ch *traineeChange) eventType() string {
	switch {
	case ch.Before == nil:
		return api.EventTraineeCreated
	case ch.Before.Enabled && !ch.After.Enabled:
		return api.EventTraineeDeleted
	case !ch.Before.Enabled && ch.After.Enabled:
		return api.EventTraineeRestored
	default:
		return api.EventTraineeUpdated
	}
}

// recordEvent is the statements that write ch's event (of type typ, of
// the trainee as row holds it) into the outbox, in the change's own batch
// and so its transaction, with one delivery per endpoint of the
// company subscribed to its type (their ids into ch.Deliveries); it
// returns the event's public id with them. A change that rolls back takes
// its event with it. The event's body is rendered when its statement
// binds it (eventBody), after the steps before it gave a new trainee its
// ids.
func (s *Store) recordEvent(ctx context.Context, ch *traineeChange, row *traineeRow, typ string, now time.Time) (string, []hotStep) {
	fields := ch.Fields
	if fields == nil {
		fields = []string{}
	}
	ev := &webhookEventRow{
		PublicID:  api.NewWebhookEventID(),
		CompanyID: row.CompanyID,
		Type:      typ,
		CreatedAt: now,
	}
	stampActor(ev, api.ActorFrom(ctx))
	ev.Traceparent = traceparent(ctx)
	ch.Recorded = true // markChange marks it, and its deliveries
	body := eventBody{typ: typ, at: now, row: row, fields: fields}
	at := s.timeArg(now)
	if s.dialect == DialectPostgres {
		// One round trip: the event, then a delivery per subscribed
		// endpoint, held FOR KEY SHARE so that an endpoint deleted
		// meanwhile is skipped rather than failing the change.
		//
		// The event feed reads a company's events by id, so ids must be
		// taken in commit order: the advisory lock, per company and held
		// to the end of the transaction (the event is a change's last
		// write), makes them so.
		return ev.PublicID, []hotStep{{text: recordEventPostgres, dest: &ch.Deliveries, args: []any{
			feedLockClass, companyLockKey(ev.CompanyID),
			ev.PublicID, ev.CompanyID, keyOf{&row.ID}, ev.Type, body, at, ev.ActorType, ev.ActorID,
			api.DeliveryPending, subscribedPattern(typ), ev.Traceparent}}}
	}
	// The event, then its deliveries (scheduleDeliveries' statement).
	return ev.PublicID, []hotStep{
		{text: recordEventSQLite, dest: &ev.ID, one: true, args: []any{
			ev.PublicID, ev.CompanyID, keyOf{&row.ID}, ev.Type, body, at, ev.ActorType, ev.ActorID, ev.Traceparent}},
		{text: scheduleDeliveriesSQLite, dest: &ch.Deliveries, args: []any{
			keyOf{&ev.ID}, api.DeliveryPending, at, ev.CompanyID, "," + typ + ","}},
	}
}

// eventBody is a change's event as its payload: the trainee as row holds
// it when the event's statement binds it.
type eventBody struct {
	typ    string
	at     time.Time
	row    *traineeRow
	fields []string
}

func (b eventBody) Value() (driver.Value, error) {
	body, err := json.Marshal(api.WebhookEvent{
		Type:      b.typ,
		Timestamp: b.at.Unix(),
		Data:      api.WebhookData{Trainee: b.row.toAPI(), ChangedFields: b.fields},
	})
	return string(body), err
}

// recordEventSQLite is recordEvent's event on SQLite: the event ($1-$6),
// its actor ($7, $8) and traceparent ($9).
const recordEventSQLite = `INSERT INTO webhook_events (public_id, company_id, trainee_id, type, payload, created_at, actor_type, actor_id, traceparent)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	RETURNING id`

// recordEventPostgres is recordEvent's one statement on PostgreSQL: the
// company's feed lock ($1, $2), the event ($3-$8, its actor $9, $10) and
// its deliveries ($11: their status; $12: subscribedPattern of its type);
// $13 is the event's traceparent.
const recordEventPostgres = `WITH l AS (SELECT pg_advisory_xact_lock($1::int4, $2::int4) AS locked),
	e AS (
		INSERT INTO webhook_events (public_id, company_id, trainee_id, type, payload, created_at, actor_type, actor_id, traceparent)
		SELECT $3::text, $4::bigint, $5::bigint, $6::text, $7::text, $8::timestamptz, $9::text, $10::bigint, $13::text FROM l
		RETURNING id, company_id, created_at)
	INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
	SELECT e.id, w.id, $11::text, 0, e.created_at, e.created_at, e.created_at
	FROM e JOIN webhooks AS w ON w.company_id = e.company_id
	WHERE (',' || w.events || ',') LIKE $12::text
	FOR KEY SHARE OF w
	RETURNING id`
