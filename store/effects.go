package store

import (
	"context"
	"slices"
	"sync"
)

// effects are what a transaction's writes ask of this process once they
// commit: that the webhook dispatcher look for due deliveries (the writes
// scheduled some, or enabled an endpoint whose deliveries waited), and that
// a company's event-feed waiters look for its new events. The writes mark
// them on their context (markDeliveries, markEvent) as they make them; the
// one post-commit hook, afterCommit, acts on them once the outermost
// transaction commits (an idempotent request's, when the writes joined it),
// and never when it rolls back. It is the store's only wake point.
type effects struct {
	mu         sync.Mutex
	deliveries bool
	companies  []int64
}

type effectsKey struct{}

// withEffects returns ctx carrying a fresh set of effects, for the
// transaction about to start.
func withEffects(ctx context.Context) (context.Context, *effects) {
	e := &effects{}
	return context.WithValue(ctx, effectsKey{}, e), e
}

func effectsOf(ctx context.Context) *effects {
	e, _ := ctx.Value(effectsKey{}).(*effects)
	return e
}

// markDeliveries records that the transaction of ctx scheduled webhook
// deliveries, or made waiting ones due.
func markDeliveries(ctx context.Context) {
	if e := effectsOf(ctx); e != nil {
		e.mu.Lock()
		e.deliveries = true
		e.mu.Unlock()
	}
}

// markEvent records that the transaction of ctx recorded an event of
// company (for the feed's long-poll).
func markEvent(ctx context.Context, companyID int64) {
	if e := effectsOf(ctx); e != nil {
		e.mu.Lock()
		if !slices.Contains(e.companies, companyID) {
			e.companies = append(e.companies, companyID)
		}
		e.mu.Unlock()
	}
}

// markChange marks what a trainee's change did, once it is written: its
// events (its own, and its automations') and the deliveries it scheduled.
func markChange(ctx context.Context, ch *traineeChange) {
	if ch.Recorded {
		markEvent(ctx, ch.After.CompanyID)
	}
	if len(ch.Deliveries) > 0 {
		markDeliveries(ctx)
	}
}

// afterCommit acts on a committed transaction's effects: it wakes this
// process's dispatcher (without blocking, coalescing) and tells the OnEvent
// listeners of each company that recorded an event; on PostgreSQL it hands
// the same marks to the wake sender, which notifies the other instances
// (wake.go).
func (s *Store) afterCommit(e *effects) {
	if e == nil {
		return
	}
	e.mu.Lock()
	deliveries, companies := e.deliveries, slices.Clone(e.companies)
	e.mu.Unlock()
	if deliveries {
		s.wakeDispatcher()
	}
	for _, c := range companies {
		s.notifyEvent(c)
	}
	if s.wakeOut != nil && (deliveries || len(companies) > 0) {
		s.wakeOut.add(deliveries, companies)
	}
}

// committedAlone runs the post-commit hook of one statement made outside
// any transaction (it committed on its own).
func (s *Store) committedAlone(deliveries bool, companies ...int64) {
	s.afterCommit(&effects{deliveries: deliveries, companies: companies})
}
