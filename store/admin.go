package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// CreateCompany adds a company. timeZone is an IANA zone name; "" is UTC.
func (s *Store) CreateCompany(ctx context.Context, name, timeZone string) (*api.Company, error) {
	var out *api.Company
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		c, err := s.createCompany(ctx, tx, name, timeZone)
		out = c
		return err
	})
	return out, err
}

// adminName trims the name of a company or key (what) and checks it: text
// without a character text may not hold (1016: the name reaches the
// terminals of traineectl whoami), 1 to 100 characters (1007).
func adminName(what, name string) (string, error) {
	name = strings.TrimSpace(name)
	if err := api.CheckText("name", name); err != nil {
		return "", err
	}
	if n := len([]rune(name)); n == 0 || n > api.MaxNameLength {
		return "", api.Invalid(api.CodeTextLength, "name", "%s name must be 1 to %d characters", what, api.MaxNameLength)
	}
	return name, nil
}

func (s *Store) createCompany(ctx context.Context, db bun.IDB, name, timeZone string) (*api.Company, error) {
	name, err := adminName("company", name)
	if err != nil {
		return nil, err
	}
	timeZone = strings.TrimSpace(timeZone)
	if timeZone == "" {
		timeZone = "UTC"
	}
	if err := api.CheckTimeZone(timeZone); err != nil {
		return nil, api.Invalid(api.CodeInvalidEnum, "timeZone", "%s", err.Error())
	}
	row := &companyRow{Name: name, TimeZone: timeZone, CreatedAt: s.utcNow()}
	if _, err := db.NewInsert().Model(row).Exec(ctx); err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(), nil
}

// Companies lists every company by id.
func (s *Store) Companies(ctx context.Context) ([]*api.Company, error) {
	var rows []companyRow
	if err := s.db.NewSelect().Model(&rows).OrderExpr("c.id ASC").Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]*api.Company, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI()
	}
	return out, nil
}

// HasCompany reports whether any company exists (serve --demo loads the
// demo data only into an empty database).
func (s *Store) HasCompany(ctx context.Context) (bool, error) {
	return s.db.NewSelect().Model((*companyRow)(nil)).Exists(ctx)
}

// companyExists is api.ErrNotFound for an unknown company.
func (s *Store) companyExists(ctx context.Context, db bun.IDB, companyID int64) error {
	ok, err := db.NewSelect().Model((*companyRow)(nil)).Where("c.id = ?", companyID).Exists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return api.ErrNotFound
	}
	return nil
}

// lockCompany is companyExists that also holds the company's row until
// the transaction ends (PostgreSQL; SQLite's write transactions hold the
// database): counts made after it, for a cap, do not race another create.
// NO KEY UPDATE, so that it does not wait for the trainee writes whose
// foreign keys hold the row FOR KEY SHARE.
func (s *Store) lockCompany(ctx context.Context, tx bun.Tx, companyID int64) error {
	var id int64
	q := tx.NewSelect().Model((*companyRow)(nil)).Column("c.id").Where("c.id = ?", companyID)
	if s.dialect == DialectPostgres {
		q = q.For("NO KEY UPDATE")
	}
	return dbError(q.Scan(ctx, &id))
}

// checkCap is api.LimitReached when q counts max rows or more (max > 0):
// the caps per company, counted after lockCompany.
func checkCap(ctx context.Context, q *bun.SelectQuery, max int, what, flag string) error {
	if max <= 0 {
		return nil
	}
	n, err := q.Count(ctx)
	if err != nil {
		return err
	}
	if n >= int64(max) {
		return api.LimitReached(what, max, flag)
	}
	return nil
}

// CreateTrainer adds a trainer to a company: api.ErrNotFound when the
// company does not exist, a *api.ConflictError when the e-mail is taken
// (trainers and trainees share the users and their unique e-mail), a
// *api.ValidationError for a bad name or e-mail.
func (s *Store) CreateTrainer(ctx context.Context, companyID int64, name, email string) (*api.Trainer, error) {
	var out *api.Trainer
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.createTrainer(ctx, tx, companyID, name, email)
		out = t
		return err
	})
	return out, err
}

func (s *Store) createTrainer(ctx context.Context, tx bun.Tx, companyID int64, name, email string) (*api.Trainer, error) {
	// The trainee rules for name and e-mail, through the validator that
	// normalises them; the password is only there to satisfy it.
	req := &api.CreateRequest{Name: name, Email: email, Password: "unused-password"}
	if err := api.ValidateCreate(req, api.DateOf(s.now())); err != nil {
		return nil, err
	}
	if err := s.companyExists(ctx, tx, companyID); err != nil {
		return nil, err
	}
	now := s.utcNow()
	user := &userRow{Email: req.Email, Name: req.Name, SearchName: searchName(req.Name), CreatedAt: now}
	if _, err := tx.NewInsert().Model(user).Exec(ctx); err != nil {
		return nil, dbError(err)
	}
	row := &trainerRow{CompanyID: companyID, UserID: user.ID, CreatedAt: now, Active: true, Name: user.Name, Email: user.Email}
	if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(), nil
}

// Trainers lists a company's trainers by id.
func (s *Store) Trainers(ctx context.Context, companyID int64) ([]*api.Trainer, error) {
	var rows []trainerRow
	if err := s.trainerScope(s.db, companyID).OrderExpr("tr.id ASC").Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]*api.Trainer, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI()
	}
	return out, nil
}

// CreateKey stores a new API key of a company: its SHA-256 and its display
// prefix, never the key. api.ErrNotFound when the company does not exist.
func (s *Store) CreateKey(ctx context.Context, companyID int64, name string, hash [32]byte, prefix string) (*api.APIKey, error) {
	return s.CreateScopedKey(ctx, companyID, name, api.KeyScopeFull, hash, prefix)
}

// CreateScopedKey is CreateKey with a scope: api.KeyScopeAdmin,
// api.KeyScopeFull, or api.KeyScopeRead for a key that may only read. The
// operator makes it: its creator is the system.
func (s *Store) CreateScopedKey(ctx context.Context, companyID int64, name, scope string, hash [32]byte, prefix string) (*api.APIKey, error) {
	if !api.ValidKeyScope(scope) {
		return nil, api.Invalid(api.CodeInvalidEnum, "scope", "key scope must be admin, full or read, not %q", scope)
	}
	var out *api.APIKey
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		k, err := s.createKey(ctx, tx, companyID, name, scope, hash, prefix)
		out = k
		return err
	})
	return out, err
}

func (s *Store) createKey(ctx context.Context, db bun.IDB, companyID int64, name, scope string, hash [32]byte, prefix string) (*api.APIKey, error) {
	name, err := adminName("key", name)
	if err != nil {
		return nil, err
	}
	if err := s.companyExists(ctx, db, companyID); err != nil {
		return nil, err
	}
	system := api.ActorSystem
	now := s.utcNow()
	row := &apiKeyRow{CompanyID: companyID, Name: name, KeyHash: hash[:], Prefix: prefix, Scope: scope, CreatedAt: now, CreatedByType: &system}
	if _, err := db.NewInsert().Model(row).Exec(ctx); err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(now), nil
}

// Keys lists a company's API keys by id, revoked ones left out.
func (s *Store) Keys(ctx context.Context, companyID int64) ([]*api.APIKey, error) {
	now := s.utcNow()
	var rows []apiKeyRow
	if err := keyStateWhere(s.keyQuery(s.db, companyID), "", now).OrderExpr("k.id ASC").Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]*api.APIKey, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI(now)
	}
	return out, nil
}

// SetKeyDisabled disables or re-enables a key; api.ErrNotFound when there
// is no such key (a revoked key is none). It takes effect on the next
// request of every instance.
func (s *Store) SetKeyDisabled(ctx context.Context, keyID int64, disabled bool) error {
	res, err := s.db.NewUpdate().
		Model((*apiKeyRow)(nil)).
		Set("disabled = ?", disabled).
		Where("k.id = ? AND k.revoked_at IS NULL", keyID).
		Exec(ctx)
	return affectedOne(res, err)
}

// DeleteKey deletes a key for good; api.ErrNotFound when there is no such
// key.
func (s *Store) DeleteKey(ctx context.Context, keyID int64) error {
	res, err := s.db.NewDelete().
		Model((*apiKeyRow)(nil)).
		Where("k.id = ?", keyID).
		Exec(ctx)
	return affectedOne(res, err)
}

func affectedOne(res sql.Result, err error) error {
	if err != nil {
		return dbError(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return api.ErrNotFound
	}
	if n != 1 {
		return fmt.Errorf("store: %d rows changed, want 1", n)
	}
	return nil
}
