package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// SetNow replaces the store's clock.
func SetNow(s *Store, now func() time.Time) { s.now = now }

// WaitTouches waits for the background writes of last_used_at.
func WaitTouches(s *Store) { s.touchWG.Wait() }

// SetMigrateLockWait changes how long Open waits for the migration lock.
func SetMigrateLockWait(d time.Duration) (restore func()) {
	old := migrateLockWait
	migrateLockWait = d
	return func() { migrateLockWait = old }
}

// SetOutbox turns the recording of webhook events on or off (benchmarks
// measure the store without it).
func SetOutbox(s *Store, on bool) { s.outbox = on }

// StopWakeSender stops the NOTIFY after each commit (PostgreSQL), for a
// baseline; call it before the store is used.
func StopWakeSender(s *Store) {
	if s.wakeOut != nil {
		s.wakeOut.close()
		s.wakeOut = nil
	}
}

// CreateTraineeThenFail creates a trainee, with its event, in a transaction
// that then fails: nothing of it may remain.
func CreateTraineeThenFail(s *Store, companyID int64, nt api.NewTrainee) error {
	return s.inTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		if _, ch, err := s.createTraineeChange(ctx, tx, companyID, nt, newTraineeOptions{}); err != nil || len(ch.Deliveries) == 0 {
			return fmt.Errorf("create in the failing transaction: %v, %d deliveries", err, len(ch.Deliveries))
		}
		return errFailAfterEvent
	})
}

var errFailAfterEvent = errors.New("fail after the event was written")

// TraceHot makes fn see the text and arguments of every hot statement s
// runs (runHot, queryHot), before it runs; set it before s is used.
func TraceHot(s *Store, fn func(text string, args []any)) { s.hotTrace = fn }

// DB is the store's own handle, for the store's tests.
func DB(s *Store) *bun.DB { return s.db }

// SetFTSLimits sets qMatch's candidate limits until restore: short for a
// q of one or two characters, walk and dense for longer ones (1, 1, 1:
// never the FTS5 list; 1, 1, big: always the walk for a page).
func SetFTSLimits(short, walk, dense int) (restore func()) {
	s0, w0, d0 := ftsShortLimit, ftsWalkLimit, ftsDenseLimit
	ftsShortLimit, ftsWalkLimit, ftsDenseLimit = short, walk, dense
	return func() { ftsShortLimit, ftsWalkLimit, ftsDenseLimit = s0, w0, d0 }
}

// SetFTSOff turns SQLite's FTS5 prefilter of q off (the scan of before
// migration 000008, keyed by trainee since 000010) or on again.
func SetFTSOff(off bool) { ftsOff = off }

// SetWalkProbe sets the sample of planSearch and walkFinds and the share
// from which the count walks, until restore: (1, 2) makes every company
// look big and never walks where an index of q serves (the index always);
// (1<<30, 0) reads every company whole, so none has an index of q used.
func SetWalkProbe(rows int, share float64) (restore func()) {
	r0, s0 := walkProbeRows, walkDenseShare
	walkProbeRows, walkDenseShare = rows, share
	return func() { walkProbeRows, walkDenseShare = r0, s0 }
}

// EventActor is one event's actor as stored.
type EventActor struct {
	Type      string  `bun:"type"`
	ActorType *string `bun:"actor_type"`
	ActorID   *int64  `bun:"actor_id"`
}

// EventActors reads the actors of a company's events, automation.fired
// included (the feed leaves those out), by id.
func EventActors(s *Store, companyID int64) ([]EventActor, error) {
	var out []EventActor
	err := s.db.NewSelect().Model((*webhookEventRow)(nil)).Column("e.type", "e.actor_type", "e.actor_id").
		Where("e.company_id = ?", companyID).OrderExpr("e.id ASC").Scan(context.Background(), &out)
	return out, err
}

// ForgetActor clears an event's actor, as on events written before the
// actors were recorded.
func ForgetActor(s *Store, eventID string) error {
	_, err := s.db.NewUpdate().Model((*webhookEventRow)(nil)).Set("actor_type = NULL, actor_id = NULL").
		Where("e.public_id = ?", eventID).Exec(context.Background())
	return err
}
