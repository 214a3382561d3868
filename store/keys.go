package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// A company's API keys, as its admin keys manage them (issue 34). The key
// lookup by hash (auth.go) is the one unscoped read of api_keys; every
// other starts from keyScope.

var _ api.AdminStore = (*Store)(nil)

// keyScope is where every query of a company's keys starts: the keys of
// one company, alias k.
func (s *Store) keyScope(db bun.IDB, companyID int64) *bun.SelectQuery {
	return db.NewSelect().Model((*apiKeyRow)(nil)).Where("k.company_id = ?", companyID)
}

// keyColumns are what a key shows (never a hash), with the names keyQuery
// joins.
const keyColumns = `k.id, k.company_id, k.name, k.prefix, k.created_at, k.last_used_at, k.disabled, k.scope,
	k.trainer_id, k.own_trainees_only, k.expires_at, k.revoked_at, k.created_by_type, k.created_by_id,
	tu.name AS trainer_name, COALESCE(cbu.name, cbk.name) AS created_by_name,
	(SELECT MAX(s.expires_at) FROM api_key_secrets AS s WHERE s.key_id = k.id) AS previous_expires_at`

// keyQuery is keyScope with keyColumns: the bound trainer's name, the
// name of the key (or the trainer that key acts as) that made it, and the
// end of its rotated-out secrets' overlap.
func (s *Store) keyQuery(db bun.IDB, companyID int64) *bun.SelectQuery {
	return s.keyScope(db, companyID).
		ColumnExpr(keyColumns).
		Join("LEFT JOIN trainers AS tr ON tr.id = k.trainer_id").
		Join("LEFT JOIN users AS tu ON tu.id = tr.user_id").
		Join("LEFT JOIN api_keys AS cbk ON k.created_by_type = ? AND cbk.id = k.created_by_id AND cbk.company_id = k.company_id", api.ActorKey).
		Join("LEFT JOIN trainers AS cbt ON cbt.id = cbk.trainer_id").
		Join("LEFT JOIN users AS cbu ON cbu.id = cbt.user_id")
}

// companyKey reads one key of the company as the API shows it.
func (s *Store) companyKey(ctx context.Context, db bun.IDB, companyID, id int64) (*api.APIKey, error) {
	row := new(apiKeyRow)
	if err := s.keyQuery(db, companyID).Where("k.id = ?", id).Scan(ctx, row); err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(s.utcNow()), nil
}

// lockKey reads one key of the company for a change: on PostgreSQL its row
// is locked to the end of the transaction.
func (s *Store) lockKey(ctx context.Context, tx bun.Tx, companyID, id int64) (*apiKeyRow, error) {
	row := new(apiKeyRow)
	if err := s.forUpdate(s.keyScope(tx, companyID).Where("k.id = ?", id)).Scan(ctx, row); err != nil {
		return nil, dbError(err)
	}
	return row, nil
}

// lockLiveKey is lockKey for a change a revoked key refuses
// (api.RevokedKey).
func (s *Store) lockLiveKey(ctx context.Context, tx bun.Tx, companyID, id int64) (*apiKeyRow, error) {
	row, err := s.lockKey(ctx, tx, companyID, id)
	if err == nil && row.RevokedAt != nil {
		err = api.RevokedKey(id)
	}
	return row, err
}

// CompanyKey returns one key of the company (see api.AdminStore).
func (s *Store) CompanyKey(ctx context.Context, companyID, id int64) (*api.APIKey, error) {
	return s.companyKey(ctx, s.db, companyID, id)
}

// keyStateWhere is the condition of a key list's state filter at now.
func keyStateWhere(sel *bun.SelectQuery, state string, now time.Time) *bun.SelectQuery {
	switch state {
	case "all":
		return sel
	case api.KeyRevoked:
		return sel.Where("k.revoked_at IS NOT NULL")
	case api.KeyDisabled:
		return sel.Where("k.revoked_at IS NULL AND k.disabled")
	case api.KeyExpired:
		return sel.Where("k.revoked_at IS NULL AND NOT k.disabled AND k.expires_at <= ?", now)
	case api.KeyActive:
		return sel.Where("k.revoked_at IS NULL AND NOT k.disabled AND (k.expires_at IS NULL OR k.expires_at > ?)", now)
	}
	return sel.Where("k.revoked_at IS NULL")
}

// KeyPage returns one page of the company's keys by id (see
// api.AdminStore).
func (s *Store) KeyPage(ctx context.Context, companyID int64, q api.KeyListQuery) (api.ListPage[*api.APIKey], error) {
	now := s.utcNow()
	sel := keyStateWhere(s.keyQuery(s.db, companyID), q.State, now)
	var rows []apiKeyRow
	if err := listWindow(sel, q.ListQuery, "k.id ASC", afterID("k.id", false)).Scan(ctx, &rows); err != nil {
		return api.ListPage[*api.APIKey]{}, err
	}
	return listRows(rows, q.Limit, 0, func(r apiKeyRow) *api.APIKey { return r.toAPI(now) }), nil
}

// CreateCompanyKey stores a key made through the API and records
// key.created (see api.AdminStore). The key is made by the ctx's actor.
func (s *Store) CreateCompanyKey(ctx context.Context, companyID int64, nk api.NewKey) (*api.APIKey, error) {
	var out *api.APIKey
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		name, err := adminName("key", nk.Name)
		if err != nil {
			return err
		}
		if nk.TrainerID != nil {
			if err := s.checkTrainer(ctx, tx, companyID, *nk.TrainerID); err != nil {
				return err
			}
		}
		by := api.ActorFrom(ctx)
		row := &apiKeyRow{CompanyID: companyID, Name: name, KeyHash: nk.Hash[:], Prefix: nk.Prefix, Scope: nk.Scope,
			CreatedAt: s.utcNow(), TrainerID: nk.TrainerID, OwnTraineesOnly: nk.OwnTraineesOnly, ExpiresAt: nk.ExpiresAt,
			CreatedByType: &by.Type}
		if by.ID != 0 {
			row.CreatedByID = &by.ID
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return dbError(err)
		}
		if out, err = s.companyKey(ctx, tx, companyID, row.ID); err != nil {
			return err
		}
		return s.recordKeyEvent(ctx, tx, companyID, api.EventKeyCreated, out, nil)
	})
	return out, err
}

// standing reports whether a key keeps its company administrable: an
// enabled admin key, not revoked, without an expiry, reaching the whole
// company.
func (k *apiKeyRow) standing() bool {
	return k.Scope == api.KeyScopeAdmin && !k.Disabled && k.RevokedAt == nil && k.ExpiresAt == nil && !k.OwnTraineesOnly
}

// standingWhere is standing as SQL over api_keys k.
const standingWhere = "k.scope = ? AND NOT k.disabled AND k.revoked_at IS NULL AND k.expires_at IS NULL AND NOT k.own_trainees_only"

// keepAdmin refuses (api.LastAdminKey) a change that takes before, the
// company's last standing key, out of standing (after). The company's row
// is locked first, so two such changes do not both see the other key.
func (s *Store) keepAdmin(ctx context.Context, tx bun.Tx, before, after *apiKeyRow) error {
	if !before.standing() || after.standing() {
		return nil
	}
	if err := s.lockCompany(ctx, tx, before.CompanyID); err != nil {
		return err
	}
	n, err := s.keyScope(tx, before.CompanyID).
		Where("k.id <> ?", before.ID).Where(standingWhere, api.KeyScopeAdmin).
		Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return api.LastAdminKey(before.ID)
	}
	return nil
}

// UpdateCompanyKey applies p to a key (see api.AdminStore): name, expiry,
// enabled, scope. A change that alters something records key.updated.
func (s *Store) UpdateCompanyKey(ctx context.Context, companyID, id int64, p api.KeyPatch) (*api.APIKey, error) {
	var out *api.APIKey
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		before, err := s.lockLiveKey(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		after, fields := patchedKey(before, p)
		if len(fields) == 0 {
			out, err = s.companyKey(ctx, tx, companyID, id)
			return err
		}
		if after.Scope == api.KeyScopeAdmin && after.OwnTraineesOnly {
			return api.Invalid(api.CodeInvalidEnum, "scope", "a key limited to its trainer's trainees (ownTraineesOnly) has scope full or read: administration reaches the whole company")
		}
		if err := s.keepAdmin(ctx, tx, before, after); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Model(after).Column("name", "expires_at", "disabled", "scope").WherePK().Exec(ctx); err != nil {
			return dbError(err)
		}
		if out, err = s.companyKey(ctx, tx, companyID, id); err != nil {
			return err
		}
		return s.recordKeyEvent(ctx, tx, companyID, api.EventKeyUpdated, out, fields)
	})
	return out, err
}

// patchedKey is before with p applied, and the API names of the fields
// that changed.
func patchedKey(before *apiKeyRow, p api.KeyPatch) (*apiKeyRow, []string) {
	after := *before
	var fields []string
	if p.Name != nil && *p.Name != before.Name {
		after.Name = *p.Name
		fields = append(fields, "name")
	}
	switch {
	case p.ClearExpiry && before.ExpiresAt != nil:
		after.ExpiresAt = nil
		fields = append(fields, "expiresAt")
	case p.ExpiresAt != nil && (before.ExpiresAt == nil || !before.ExpiresAt.Equal(*p.ExpiresAt)):
		after.ExpiresAt = p.ExpiresAt
		fields = append(fields, "expiresAt")
	}
	if p.Enabled != nil && *p.Enabled == before.Disabled {
		after.Disabled = !*p.Enabled
		fields = append(fields, "enabled")
	}
	if p.Scope != nil && *p.Scope != before.Scope {
		after.Scope = *p.Scope
		fields = append(fields, "scope")
	}
	return &after, fields
}

// maxPreviousSecrets bounds the rotated-out secrets of a key that work at
// once: the oldest goes first.
const maxPreviousSecrets = 10

// RotateCompanyKey gives a key a new secret; the previous one keeps
// working for overlap (see api.AdminStore), on its own: a second rotation
// within an overlap, a retried one included, never cuts an earlier
// secret's overlap short.
func (s *Store) RotateCompanyKey(ctx context.Context, companyID, id int64, hash [32]byte, prefix string, overlap time.Duration) (*api.APIKey, error) {
	var out *api.APIKey
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.lockLiveKey(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		now := s.utcNow()
		var until *time.Time
		if overlap > 0 {
			t := now.Add(overlap)
			until = &t
			if err := s.keepSecret(ctx, tx, row, t, now); err != nil {
				return err
			}
		}
		row.KeyHash, row.Prefix = hash[:], prefix
		if _, err := tx.NewUpdate().Model(row).Column("key_hash", "prefix").WherePK().Exec(ctx); err != nil {
			return dbError(err)
		}
		if out, err = s.companyKey(ctx, tx, companyID, id); err != nil {
			return err
		}
		ev := *out
		ev.PreviousSecretExpiresAt = utcPtr(until)
		return s.recordKeyEvent(ctx, tx, companyID, api.EventKeyRotated, &ev, nil)
	})
	return out, err
}

// keepSecret keeps row's current secret working until until, beside its
// other rotated-out secrets that still work (expired ones are dropped, and
// the oldest beyond maxPreviousSecrets).
func (s *Store) keepSecret(ctx context.Context, tx bun.Tx, row *apiKeyRow, until, now time.Time) error {
	if _, err := tx.NewDelete().Model((*apiKeySecretRow)(nil)).Where("s.key_id = ? AND s.expires_at <= ?", row.ID, now).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.NewInsert().Model(&apiKeySecretRow{KeyID: row.ID, KeyHash: row.KeyHash, ExpiresAt: until}).Exec(ctx); err != nil {
		return dbError(err)
	}
	keep := tx.NewSelect().Model((*apiKeySecretRow)(nil)).Column("s.id").Where("s.key_id = ?", row.ID).
		OrderExpr("s.expires_at DESC, s.id DESC").Limit(maxPreviousSecrets)
	_, err := tx.NewDelete().Model((*apiKeySecretRow)(nil)).Where("s.key_id = ? AND s.id NOT IN (?)", row.ID, keep).Exec(ctx)
	return err
}

// RevokeCompanyKey refuses a key for good, from the next request on, on
// every instance (see api.AdminStore). Its row stays, disabled, so that
// the feed still names it. Revoking a revoked key answers it again.
func (s *Store) RevokeCompanyKey(ctx context.Context, companyID, id int64) (*api.APIKey, error) {
	var out *api.APIKey
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		before, err := s.lockKey(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if before.RevokedAt != nil {
			out, err = s.companyKey(ctx, tx, companyID, id)
			return err
		}
		now := s.utcNow()
		after := *before
		after.RevokedAt, after.Disabled = &now, true
		if err := s.keepAdmin(ctx, tx, before, &after); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Model(&after).Column("revoked_at", "disabled").WherePK().Exec(ctx); err != nil {
			return dbError(err)
		}
		if _, err := tx.NewDelete().Model((*apiKeySecretRow)(nil)).Where("s.key_id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if out, err = s.companyKey(ctx, tx, companyID, id); err != nil {
			return err
		}
		return s.recordKeyEvent(ctx, tx, companyID, api.EventKeyRevoked, out, nil)
	})
	return out, err
}

// recordKeyEvent records an event of a key: its data, never a secret.
func (s *Store) recordKeyEvent(ctx context.Context, tx bun.Tx, companyID int64, typ string, k *api.APIKey, fields []string) error {
	return s.recordAdminEvent(ctx, tx, companyID, typ, api.AdminData{Key: k.EventData(), ChangedFields: fields})
}

// recordAdminEvent writes an administration event into the outbox with a
// delivery for every endpoint subscribed to its type, inside the change's
// transaction; data's actor is the ctx's, named as it is now.
func (s *Store) recordAdminEvent(ctx context.Context, tx bun.Tx, companyID int64, typ string, data api.AdminData) error {
	if !s.outbox {
		return nil
	}
	now := s.utcNow()
	actor, err := s.namedActor(ctx, tx, companyID, api.ActorFrom(ctx))
	if err != nil {
		return err
	}
	data.Actor = actor
	body, err := json.Marshal(api.AdminEvent{Type: typ, Timestamp: now.Unix(), Data: data})
	if err != nil {
		return err
	}
	ev := &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: companyID, Type: typ, Payload: string(body), CreatedAt: now}
	if err := s.insertEvent(ctx, tx, ev); err != nil {
		return err
	}
	_, err = s.scheduleDeliveries(ctx, tx, ev, now)
	return err
}

// namedActor is a with its name as it is now: a key's (or, for a key
// bound to a trainer, the trainer's, with TrainerID), an automation's.
func (s *Store) namedActor(ctx context.Context, tx bun.Tx, companyID int64, a api.Actor) (api.Actor, error) {
	var err error
	switch a.Type {
	case api.ActorKey:
		var row struct {
			Name      string  `bun:"name"`
			TrainerID *int64  `bun:"trainer_id"`
			Trainer   *string `bun:"trainer_name"`
		}
		err = s.keyScope(tx, companyID).ColumnExpr("k.name, k.trainer_id, tu.name AS trainer_name").
			Join("LEFT JOIN trainers AS tr ON tr.id = k.trainer_id").
			Join("LEFT JOIN users AS tu ON tu.id = tr.user_id").
			Where("k.id = ?", a.ID).Scan(ctx, &row)
		a.Name, a.TrainerID = row.Name, row.TrainerID
		if row.Trainer != nil {
			a.Name = *row.Trainer
		}
	case api.ActorAutomation:
		err = tx.NewSelect().Model((*automationRow)(nil)).Column("au.name").
			Where("au.company_id = ? AND au.id = ?", companyID, a.ID).Scan(ctx, &a.Name)
	}
	if err = dbError(err); err == api.ErrNotFound {
		err = nil // a key or automation deleted meanwhile: unnamed
	}
	return a, err
}
