package store

// The last stage of a trainee's change: the DISABLE_TRAINEE verdicts of
// the automations it fired, settled by the rules (rules.Settle) and
// applied here as a second change of the same transaction, or their runs
// marked skipped.

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
)

// settleDisables applies ch's DISABLE_TRAINEE verdicts as the rules
// settle them (rules.Settle): one soft-deletes the trainee as a DELETE
// would (its trainee.deleted event, and the automations that event fires,
// included), the others' runs are marked skipped. It loops until no
// verdict is left: the disable's own verdicts find the trainee deleted,
// so it ends.
//
// The trainee is ch.stored: the row the change left (held by the
// transaction: inserted by it, or read FOR UPDATE), so nothing is read
// again.
func (s *Store) settleDisables(ctx context.Context, tx bun.Tx, ch *traineeChange) error {
	for len(ch.verdicts) > 0 {
		verdicts := ch.verdicts
		ch.verdicts = nil
		before := ch.stored
		disable, skipped := rules.Settle(before.Enabled, verdicts)
		if disable != nil {
			after := before.clone()
			after.Enabled = false
			by := api.WithActor(ctx, api.Actor{Type: api.ActorAutomation, ID: disable.Automation})
			next, err := s.writeChange(by, tx, before, after, "")
			if err != nil {
				return err
			}
			ch.Deliveries = append(ch.Deliveries, next.Deliveries...)
			ch.verdicts = next.verdicts
			ch.stored = after
		}
		if len(skipped) > 0 {
			if err := s.skipRuns(ctx, tx, skipped); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipRuns marks DISABLE_TRAINEE runs that found their trainee deleted
// already (rules.Settle) skipped.
func (s *Store) skipRuns(ctx context.Context, tx bun.Tx, ids []int64) error {
	_, err := tx.NewUpdate().Model((*automationRunRow)(nil)).Set("outcome = ?", api.OutcomeSkipped).
		Where("r.id IN (?)", bun.In(ids)).Exec(ctx)
	return err
}
