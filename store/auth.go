package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// touchTimeout bounds one background write of last_used_at.
const touchTimeout = 5 * time.Second

// keyLookup is what Authenticate reads of a key.
type keyLookup struct {
	ID         int64      `bun:"id"`
	CompanyID  int64      `bun:"company_id"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	TimeZone   string     `bun:"time_zone"`
	Scope      string     `bun:"scope"`
	ExpiresAt  *time.Time `bun:"expires_at"`
	// Trainer is the key's trainer id, negated for a key limited to that
	// trainer's trainees (keyTrainer): one column, not two, on the path of
	// every request (each column read costs SQLite's driver allocations).
	Trainer *int64 `bun:"trainer"`
}

// keyTrainer is keyLookup's trainer column of api_keys k.
const keyTrainer = "CASE WHEN k.own_trainees_only THEN -k.trainer_id ELSE k.trainer_id END"

// keyLookupColumns are keyLookup's columns of api_keys k and companies c.
const keyLookupColumns = "k.id, k.company_id, k.last_used_at, c.time_zone, k.scope, k.expires_at, " + keyTrainer + " AS trainer"

// trainer decodes Trainer: the trainer the key acts as, and whether it is
// limited to that trainer's trainees.
func (k *keyLookup) trainer() (*int64, bool) {
	if k.Trainer == nil || *k.Trainer >= 0 {
		return k.Trainer, false
	}
	id := -*k.Trainer
	return &id, true
}

// authQuery finds an enabled key by its hash ($1), with its company's zone.
var authQuery = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.db.NewSelect().
		Model((*apiKeyRow)(nil)).
		ColumnExpr(keyLookupColumns).
		Join("JOIN companies AS c ON c.id = k.company_id").
		Where(enabledKey, placeholder(1))
}}

// previousKeyQuery finds an enabled key by the hash ($1) of one of its
// rotated-out secrets, while that secret works (after $2): asked only when
// authQuery found no key, so a rotation costs the current secret nothing.
var previousKeyQuery = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.db.NewSelect().
		Model((*apiKeyRow)(nil)).
		ColumnExpr(keyLookupColumns).
		Join("JOIN api_key_secrets AS s ON s.key_id = k.id").
		Join("JOIN companies AS c ON c.id = k.company_id").
		Where("s.key_hash = ? AND s.expires_at > ? AND NOT k.disabled", placeholder(1), placeholder(2))
}}

var _ api.KeyTraineeReader = (*Store)(nil)

// enabledKey is the condition on api_keys k of a key lookup by hash.
const enabledKey = "k.key_hash = ? AND NOT k.disabled"

// keyTraineeRow is a trainee and the key that reads it (its columns
// prefixed key_).
type keyTraineeRow struct {
	traineeRow
	Key keyLookup `bun:"embed:key_"`
}

// keyTraineeByID is traineeByID for the company of the enabled key whose
// hash is $1, and trainee id $2: the trainee scope of the key's company,
// the key and its company joined. A key limited to its trainer's trainees
// finds that trainer's trainees only: another trainer's takes the same
// way as another company's (the key and the trainee looked up apart), so
// not even the work done tells them apart.
var keyTraineeByID = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.byRowID(s.traineeQuery(s.db, bun.Safe("k.company_id"))).
		Join("JOIN api_keys AS k ON "+enabledKey, placeholder(1)).
		Join("JOIN companies AS c ON c.id = k.company_id").
		// The key's company is the trainee's (t.company_id): not read twice.
		ColumnExpr("k.id AS key_id, k.last_used_at AS key_last_used_at, c.time_zone AS key_time_zone, k.scope AS key_scope, "+
			"k.expires_at AS key_expires_at, "+keyTrainer+" AS key_trainer").
		Where("t.id = ?", placeholder(2)).
		Where("(NOT k.own_trainees_only OR t.trainer_id = k.trainer_id)")
}}

// AuthenticateTrainee is Authenticate and Trainee in one round trip (see
// api.KeyTraineeReader); like Authenticate, it is never cached.
func (s *Store) AuthenticateTrainee(ctx context.Context, hash [32]byte, id int64) (*api.Principal, *api.Trainee, bool, error) {
	p, t, _, found, err := s.AuthenticateTraineeVersion(ctx, hash, id)
	return p, t, found, err
}

var _ api.KeyTraineeVersionReader = (*Store)(nil)

// AuthenticateTraineeVersion is AuthenticateTrainee with the trainee's
// version (its ETag).
func (s *Store) AuthenticateTraineeVersion(ctx context.Context, hash [32]byte, id int64) (*api.Principal, *api.Trainee, int64, bool, error) {
	var row keyTraineeRow
	err := s.queryHot(ctx, keyTraineeByID, &row, hash[:], id)
	if errors.Is(err, api.ErrNotFound) {
		return nil, nil, 0, false, nil
	}
	if err != nil {
		return nil, nil, 0, false, err
	}
	row.Key.CompanyID = row.CompanyID
	p, err := s.principal(row.Key)
	if err != nil {
		return nil, nil, 0, false, err
	}
	return p, row.toAPI(), row.Version, true, nil
}

// Authenticate finds the enabled key whose SHA-256 is hash, and its
// company. It is the one unscoped lookup, and it is never cached: a key
// disabled or deleted through any instance is refused on the next request.
//
// A key rotated lately is also found by its previous secret, until the
// overlap ends; an expired key is refused like a disabled one.
func (s *Store) Authenticate(ctx context.Context, hash [32]byte) (*api.Principal, error) {
	var row keyLookup
	err := s.queryHot(ctx, authQuery, &row, hash[:])
	if errors.Is(err, api.ErrNotFound) {
		err = s.queryHot(ctx, previousKeyQuery, &row, hash[:], s.timeArg(s.utcNow()))
	}
	if errors.Is(err, api.ErrNotFound) {
		return nil, api.ErrUnauthorized
	}
	if err != nil {
		return nil, err
	}
	return s.principal(row)
}

// principal is who a key found by Authenticate or AuthenticateTrainee
// acts as; it records that the key was used. A key past its expiry is
// api.ErrUnauthorized.
func (s *Store) principal(k keyLookup) (*api.Principal, error) {
	if k.ExpiresAt != nil && !s.now().Before(*k.ExpiresAt) {
		return nil, api.ErrUnauthorized
	}
	loc, err := s.location(k.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("store: company %d: time zone %q: %w", k.CompanyID, k.TimeZone, err)
	}
	s.touch(k.ID, k.LastUsedAt)
	trainer, own := k.trainer()
	return &api.Principal{CompanyID: k.CompanyID, KeyID: k.ID, Scope: k.Scope, Location: loc,
		TrainerID: trainer, OwnTraineesOnly: own}, nil
}

// touch records that a key was used, at most once per touchPeriod per key
// and process: the stored value and this process's last write both count.
// The write runs in the background; Close waits for it.
func (s *Store) touch(keyID int64, stored *time.Time) {
	now := s.utcNow()
	s.touchMu.Lock()
	defer s.touchMu.Unlock()
	if s.closed {
		return
	}
	last, ok := s.touched[keyID]
	if stored != nil && (!ok || stored.After(last)) {
		last, ok = *stored, true
	}
	if ok && now.Sub(last) < s.touchPeriod {
		s.touched[keyID] = last
		return
	}
	s.touched[keyID] = now
	s.touchWG.Add(1)
	go func() {
		defer s.touchWG.Done()
		base := context.Background()
		if s.tracer != nil {
			base = Untraced(base) // a background write of no request's: no lone span
		}
		ctx, cancel := context.WithTimeout(base, touchTimeout)
		defer cancel()
		// Best effort: a lost write only makes "last used" older.
		_, _ = s.db.NewUpdate().
			Model((*apiKeyRow)(nil)).
			Set("last_used_at = ?", now).
			Where("k.id = ?", keyID).
			Exec(ctx)
	}()
}
