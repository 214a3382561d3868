package store

// A trainee's change, from its rows to its verdicts, in one transaction
// and one direction: saveTrainee and writeChange call each stage once, in
// order, and no stage calls another: the trainee's rows are written
// (trainee_row.go), the outbox records the event and schedules its
// deliveries (recordEvent), the rules fire the company's event automations
// (fireEventAutomations, deciding by package rules), the change's effects
// are marked for the post-commit hook (markChange), and the verdicts the
// automations answered with are settled last (settleDisables, in
// verdicts.go, by rules.Settle): a DISABLE_TRAINEE verdict is a second
// change of the same transaction, through writeChange again. Nothing in
// the rules calls back into the trainee code.

import (
	"context"

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
	return ch, nil
}

// writeChange writes one change's rows, records its event in the outbox,
// fires the automations the rules fire for it and marks its effects:
// saveTrainee without the verdicts applied. A change that alters nothing
// does none of it.
//
// Its statements run as one batch (runSteps), built before any of it
// runs: a create's rows (an update's are written by writeRows), the event
// with its deliveries, and the read of the company's automations of the
// event's trigger, which the rules then decide on.
func (s *Store) writeChange(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string) (ch *traineeChange, err error) {
	now := s.utcNow()
	ch, wrote, steps, err := s.writeRows(ctx, tx, before, after, passwordHash, now)
	if err != nil || !wrote {
		return ch, err
	}
	var (
		typ, eventID string
		autos        []*automationRow
	)
	if s.outbox {
		typ = ch.eventType()
		if s.tracer != nil {
			var span trace.Span
			ctx, span = s.outboxSpan(ctx, typ, after.CompanyID)
			defer func() { endOutboxSpan(span, ch, err) }()
		}
		var event []hotStep
		eventID, event = s.recordEvent(ctx, ch, after, typ, now)
		steps = append(steps, event...)
		// Automations fire from the same outbox write: with the change,
		// or not at all.
		if trigger := api.TriggerOfEvent(typ); trigger != "" {
			steps = append(steps, hotStep{q: eventAutomationsQuery, args: []any{after.CompanyID, trigger}, dest: &autos})
		}
	}
	if err := s.runSteps(ctx, tx, steps); err != nil {
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
	markChange(ctx, ch)
	return ch, nil
}
