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
}

// authQuery finds an enabled key by its hash ($1), with its company's zone.
var authQuery = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.db.NewSelect().
		Model((*apiKeyRow)(nil)).
		ColumnExpr("k.id, k.company_id, k.last_used_at, c.time_zone, k.scope").
		Join("JOIN companies AS c ON c.id = k.company_id").
		Where(enabledKey, placeholder(1))
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
// the key and its company joined.
var keyTraineeByID = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.traineeQuery(s.db, bun.Safe("k.company_id")).
		Join("JOIN api_keys AS k ON "+enabledKey, placeholder(1)).
		Join("JOIN companies AS c ON c.id = k.company_id").
		ColumnExpr("k.id AS key_id, k.company_id AS key_company_id, k.last_used_at AS key_last_used_at, c.time_zone AS key_time_zone, k.scope AS key_scope").
		Where("t.id = ?", placeholder(2))
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
	p, err := s.principal(row.Key)
	if err != nil {
		return nil, nil, 0, false, err
	}
	return p, row.toAPI(), row.Version, true, nil
}

// Authenticate finds the enabled key whose SHA-256 is hash, and its
// company. It is the one unscoped lookup, and it is never cached: a key
// disabled or deleted through any instance is refused on the next request.
func (s *Store) Authenticate(ctx context.Context, hash [32]byte) (*api.Principal, error) {
	var row keyLookup
	err := s.queryHot(ctx, authQuery, &row, hash[:])
	if errors.Is(err, api.ErrNotFound) {
		return nil, api.ErrUnauthorized
	}
	if err != nil {
		return nil, err
	}
	return s.principal(row)
}

// principal is who a key found by Authenticate or AuthenticateTrainee
// acts as; it records that the key was used.
func (s *Store) principal(k keyLookup) (*api.Principal, error) {
	loc, err := s.location(k.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("store: company %d: time zone %q: %w", k.CompanyID, k.TimeZone, err)
	}
	s.touch(k.ID, k.LastUsedAt)
	return &api.Principal{CompanyID: k.CompanyID, KeyID: k.ID, Scope: k.Scope, Location: loc}, nil
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
		ctx, cancel := context.WithTimeout(context.Background(), touchTimeout)
		defer cancel()
		// Best effort: a lost write only makes "last used" older.
		_, _ = s.db.NewUpdate().
			Model((*apiKeyRow)(nil)).
			Set("last_used_at = ?", now).
			Where("k.id = ?", keyID).
			Exec(ctx)
	}()
}
