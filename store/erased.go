package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

var _ api.ErasedChecker = (*Store)(nil)

// erasureSecretRow is a company's key of its erased fingerprints: 32
// random bytes, made at the company's first erase.
type erasureSecretRow struct {
	bun.BaseModel `bun:"table:erasure_secrets,alias:es"`

	CompanyID int64     `bun:"company_id,pk"`
	Secret    []byte    `bun:"secret"`
	CreatedAt time.Time `bun:"created_at"`
}

// erasedFingerprintRow is the keyed hash of an erased trainee's e-mail or
// phone number (api.ErasedFingerprint), never the value itself.
type erasedFingerprintRow struct {
	bun.BaseModel `bun:"table:erased_fingerprints,alias:ef"`

	CompanyID   int64     `bun:"company_id,pk"`
	Kind        string    `bun:"kind,pk"`
	Fingerprint string    `bun:"fingerprint,pk"`
	ErasedAt    time.Time `bun:"erased_at"`
}

// erasureSecret is the company's secret; with create, one is created when
// the company has none yet (in tx, so that it commits with the erase that
// needs it), else nil is returned for none.
func erasureSecret(ctx context.Context, db bun.IDB, companyID int64, create bool, now time.Time) ([]byte, error) {
	if create {
		secret := make32()
		row := &erasureSecretRow{CompanyID: companyID, Secret: secret, CreatedAt: now}
		if _, err := db.NewInsert().Model(row).On("CONFLICT (company_id) DO NOTHING").Exec(ctx); err != nil {
			return nil, dbError(err)
		}
	}
	row := new(erasureSecretRow)
	err := erasedScope(db, row, "es", companyID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError(err)
	}
	return row.Secret, nil
}

// erasedScope is where every read of a company's erasure secret and
// fingerprints starts: model's rows (alias its table's alias) of the
// company.
func erasedScope(db bun.IDB, model any, alias string, companyID int64) *bun.SelectQuery {
	return db.NewSelect().Model(model).Where("?.company_id = ?", bun.Ident(alias), companyID)
}

func make32() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return b
}

// recordFingerprints keeps the keyed hashes of the erased trainee's
// e-mail and phone number, in the erase's transaction; a value erased
// before keeps its latest erase time.
func recordFingerprints(ctx context.Context, tx bun.Tx, row *traineeRow, now time.Time) error {
	secret, err := erasureSecret(ctx, tx, row.CompanyID, true, now)
	if err != nil {
		return err
	}
	var rows []erasedFingerprintRow
	if fp := api.ErasedFingerprint(secret, api.ErasedEmail, row.Email); fp != "" {
		rows = append(rows, erasedFingerprintRow{CompanyID: row.CompanyID, Kind: api.ErasedEmail, Fingerprint: fp, ErasedAt: now})
	}
	if row.Phone != nil {
		if fp := api.ErasedFingerprint(secret, api.ErasedPhone, *row.Phone); fp != "" {
			rows = append(rows, erasedFingerprintRow{CompanyID: row.CompanyID, Kind: api.ErasedPhone, Fingerprint: fp, ErasedAt: now})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err = tx.NewInsert().Model(&rows).
		On("CONFLICT (company_id, kind, fingerprint) DO UPDATE").Set("erased_at = EXCLUDED.erased_at").Exec(ctx)
	return dbError(err)
}

// ErasedMatches returns, for each of people that names a trainee erased
// from the company by its e-mail address or phone number, a match (the
// e-mail first when both do), in people's order. A company that never
// erased anyone has no secret yet, and no match.
func (s *Store) ErasedMatches(ctx context.Context, companyID int64, people []api.ErasedProbe) ([]api.ErasedMatch, error) {
	out := []api.ErasedMatch{}
	if len(people) == 0 {
		return out, nil
	}
	secret, err := erasureSecret(ctx, s.db, companyID, false, time.Time{})
	if err != nil || secret == nil {
		return out, err
	}
	type probe struct{ email, phone string }
	probes := make([]probe, len(people))
	var fps []string
	for i, p := range people {
		probes[i].email = api.ErasedFingerprint(secret, api.ErasedEmail, p.Email)
		if p.PhoneNumber != nil {
			probes[i].phone = api.ErasedFingerprint(secret, api.ErasedPhone, *p.PhoneNumber)
		}
		for _, fp := range []string{probes[i].email, probes[i].phone} {
			if fp != "" {
				fps = append(fps, fp)
			}
		}
	}
	if len(fps) == 0 {
		return out, nil
	}
	var found []erasedFingerprintRow
	err = erasedScope(s.db, &found, "ef", companyID).Where("ef.fingerprint IN (?)", bun.In(fps)).Scan(ctx)
	if err != nil {
		return nil, dbError(err)
	}
	at := map[string]time.Time{}
	for _, f := range found {
		at[f.Kind+":"+f.Fingerprint] = f.ErasedAt.UTC()
	}
	for i, p := range probes {
		if t, ok := at[api.ErasedEmail+":"+p.email]; ok && p.email != "" {
			out = append(out, api.ErasedMatch{Index: i, Field: "email", ErasedAt: t})
		} else if t, ok := at[api.ErasedPhone+":"+p.phone]; ok && p.phone != "" {
			out = append(out, api.ErasedMatch{Index: i, Field: "phoneNumber", ErasedAt: t})
		}
	}
	return out, nil
}
